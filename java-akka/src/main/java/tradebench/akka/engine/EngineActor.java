package tradebench.akka.engine;

import akka.actor.AbstractActorWithTimers;
import akka.actor.ActorRef;
import akka.actor.Props;
import akka.event.Logging;
import akka.event.LoggingAdapter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import tradebench.engine.Cycle;
import tradebench.engine.EngineProtocol.Crash;
import tradebench.engine.EngineProtocol.Drain;
import tradebench.engine.EngineProtocol.Drained;
import tradebench.engine.EngineProtocol.NewOrder;
import tradebench.engine.EngineProtocol.PersistenceComplete;
import tradebench.engine.EngineProtocol.PersistenceFailed;
import tradebench.engine.EngineProtocol.Run;
import tradebench.engine.Partition;
import tradebench.engine.TradingEngine;
import tradebench.model.Market;
import tradebench.model.Order;

/**
 * One engine (contract section 1) as an actor: it alone owns the market of its
 * partition, so nothing in it is shared or locked. Its messages are
 * {@link tradebench.engine.EngineProtocol}'s, as in java-spray-async.
 * <ul>
 * <li>{@link NewOrder}: an order waits in the engine's inbox (the mailbox, then
 *     {@link #arrived}) until the next cycle;</li>
 * <li>{@link Run}: one cycle (join, time out, trade); its sales go to the
 *     blocking JDBC writer on the persistence dispatcher, never on this one;</li>
 * <li>{@link PersistenceComplete}: the sales are stored; the next {@code Run}
 *     comes after DELAY_MS, so the orders that arrived meanwhile join first.</li>
 * </ul>
 * Between a cycle's {@code Run} and its {@code PersistenceComplete} no other
 * {@code Run} exists: one cycle at a time, and the next starts only after the
 * sales of this one are stored.
 */
public final class EngineActor extends AbstractActorWithTimers {

    private static final Object RUN_TIMER = "run";
    private static final Runnable NOTHING = () -> { };

    private final LoggingAdapter log = Logging.getLogger(getContext().getSystem(), this);
    private final Partition part;
    private final long delayMs;
    private final TradingEngine engine;
    private final Executor persistence;

    /** Orders received since the last cycle, in arrival (mailbox) order. */
    private List<Order> arrived = new ArrayList<>();
    private boolean persisting;
    private final List<ActorRef> drainWaiters = new ArrayList<>();
    /** Drained: no more cycles. A later cycle could still trade (a buyer meets one seller per cycle) and make sales nobody stores. */
    private boolean stopped;
    private boolean crashNextCycle;

    public static Props props(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets, String persistenceDispatcher) {
        return Props.create(EngineActor.class, () -> new EngineActor(part, delayMs, timeoutMs, markets, persistenceDispatcher));
    }

    private EngineActor(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets, String persistenceDispatcher) {
        this.part = part;
        this.delayMs = delayMs;
        this.engine = new TradingEngine(markets.get(), timeoutMs, part.stats(), part.registry());
        this.persistence = getContext().getSystem().dispatchers().lookup(persistenceDispatcher);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(NewOrder.class, this::onNewOrder)
                .match(Run.class, r -> onRun())
                .match(PersistenceComplete.class, this::onPersistenceComplete)
                .match(PersistenceFailed.class, this::onPersistenceFailed)
                .match(Drain.class, d -> onDrain())
                .match(Crash.class, c -> crashNextCycle = true)
                .build();
    }

    /** The first cycle at once (also after a restart: postRestart calls preStart). */
    @Override
    public void preStart() {
        getSelf().tell(Run.INSTANCE, ActorRef.noSender());
    }

    private void onNewOrder(NewOrder m) {
        arrived.add(m.order());
    }

    private void onRun() {
        // A second Run can exist (the drain's nudge beside a queued one, DELAY_MS=0):
        // while a cycle's sales are being stored it must not start another cycle.
        if (stopped || persisting) return;
        if (crashNextCycle) throw new IllegalStateException("injected fault: engine " + part.engine() + " fails (FAULTS=on)");
        List<Order> batch = arrived;
        arrived = new ArrayList<>();
        part.limit().release(batch.size()); // joined now: room for as many new orders
        Cycle cycle = engine.trade(System.currentTimeMillis(), batch);
        if (cycle.sales().isEmpty()) {
            engine.stored(cycle);
            cycleDone();
        } else {
            persist(cycle);
        }
    }

    /** The blocking write runs on the persistence dispatcher; its end comes back as a message. */
    private void persist(Cycle cycle) {
        persisting = true;
        final ActorRef self = getSelf(); // the callback sees only this ref and the immutable cycle
        CompletableFuture.runAsync(() -> part.writer().store(cycle.sales(), NOTHING), persistence)
                .whenComplete((ok, failure) -> self.tell(failure == null
                        ? new PersistenceComplete(cycle)
                        : new PersistenceFailed(cycle, failure), ActorRef.noSender()));
    }

    private void onPersistenceComplete(PersistenceComplete m) {
        persisting = false;
        engine.stored(m.cycle());
        cycleDone();
    }

    private void onPersistenceFailed(PersistenceFailed m) {
        part.stats().persistenceFailure();
        log.error(m.cause(), "engine {}: storing cycle {} failed unexpectedly, storing it again", part.engine(), m.cycle().number());
        persist(m.cycle()); // the writer is idempotent: rows already stored are not stored twice
    }

    private void onDrain() {
        if (stopped) {
            getSender().tell(new Drained(part.engine()), getSelf());
            return;
        }
        drainWaiters.add(getSender());
        if (!persisting) { // no need to sit out the pause: the last cycles run now
            getTimers().cancel(RUN_TIMER);
            getSelf().tell(Run.INSTANCE, ActorRef.noSender());
        }
    }

    /**
     * A cycle's sales are stored: when draining and nothing waits any more,
     * answer and stop cycling; otherwise pause until the next cycle. (The
     * gateway is closed and Tomcat stopped before the drain begins, so no order
     * can come after the answer.)
     */
    private void cycleDone() {
        if (!drainWaiters.isEmpty() && arrived.isEmpty() && part.limit().pending() == 0) {
            for (ActorRef w : drainWaiters) w.tell(new Drained(part.engine()), getSelf());
            drainWaiters.clear();
            stopped = true;
            return;
        }
        if (delayMs == 0) {
            getSelf().tell(Run.INSTANCE, ActorRef.noSender()); // behind the orders already in the mailbox
        } else {
            getTimers().startSingleTimer(RUN_TIMER, Run.INSTANCE, Duration.ofMillis(delayMs));
        }
    }

    /**
     * A cycle threw: this instance and its market go, the partition stays
     * ({@link TradingEngine#abandon}: the orders open here are forgotten; the
     * orders still in the mailbox survive the restart and join the new market;
     * sales already stored stay stored and counted). A Drain being waited for
     * is passed on to the new instance.
     */
    @Override
    public void preRestart(Throwable reason, Optional<Object> message) throws Exception {
        part.limit().release(arrived.size()); // never joined, never will: give their places back
        int lost = engine.abandon(arrived);
        log.warning("engine {}: restarting after {}; {} open orders lost", part.engine(), reason, lost);
        for (ActorRef w : drainWaiters) getSelf().tell(Drain.INSTANCE, w);
        super.preRestart(reason, message);
    }
}
