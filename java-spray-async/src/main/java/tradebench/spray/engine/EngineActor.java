package tradebench.spray.engine;

import akka.actor.AbstractActorWithTimers;
import akka.actor.ActorRef;
import akka.actor.Props;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import tradebench.engine.Cycle;
import tradebench.engine.EngineProtocol.Crash;
import tradebench.engine.EngineProtocol.Drain;
import tradebench.engine.EngineProtocol.Drained;
import tradebench.engine.EngineProtocol.NewOrder;
import tradebench.engine.EngineProtocol.PersistenceComplete;
import tradebench.engine.EngineProtocol.Run;
import tradebench.engine.Partition;
import tradebench.engine.TradingEngine;
import tradebench.model.Market;
import tradebench.model.Order;

/**
 * One engine (one partition of the products) as an actor: the 2014 original's
 * engine actor. Its messages are {@link tradebench.engine.EngineProtocol}'s, as
 * in java-akka.
 * <ul>
 * <li>{@link NewOrder}: the order waits in {@link #arrived} until the next cycle;</li>
 * <li>{@link Run}: one cycle (join, time out, trade); its inserts are fired and
 *     the cycle returns at once;</li>
 * <li>{@link PersistenceComplete}: sent by the writer's callback when the last
 *     insert is acknowledged; only then is the next {@code Run} scheduled,
 *     {@code DELAY_MS} later, on Akka's scheduler.</li>
 * </ul>
 * No thread ever waits for the database. An engine with nothing to trade or
 * time out schedules no cycle until an order arrives.
 */
public final class EngineActor extends AbstractActorWithTimers {
    private static final Object RUN_TIMER = "run";

    private final Partition part;
    private final Duration delay;
    private final TradingEngine engine;
    /** Orders received since the last cycle, in arrival (mailbox) order. */
    private final List<Order> arrived = new ArrayList<>();
    private boolean crashNextCycle;
    private final List<ActorRef> drainWaiters = new ArrayList<>();
    /** A cycle's sales are being stored: no other cycle may start. */
    private boolean persisting;
    /** Nothing to trade and nothing to time out: no cycle is scheduled until an order arrives. */
    private boolean idle = true;
    /**
     * Drained: no more cycles (as java-akka's engine). A later cycle could still trade (a buyer meets one
     * seller per cycle) and make sales nobody stores: the service closes the database pool once every
     * engine said Drained, and such a cycle's inserts then failed or committed uncounted.
     */
    private boolean stopped;

    /** The market is made anew by each instance: a restarted engine starts empty. */
    public static Props props(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets) {
        return Props.create(EngineActor.class, () -> new EngineActor(part, delayMs, timeoutMs, markets));
    }

    private EngineActor(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets) {
        this.part = part;
        this.delay = Duration.ofMillis(delayMs);
        this.engine = new TradingEngine(markets.get(), timeoutMs, part.stats(), part.registry());
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(NewOrder.class, this::onNewOrder)
                .match(Run.class, r -> onRun())
                .match(PersistenceComplete.class, this::onPersistenceComplete)
                .match(Drain.class, d -> onDrain())
                .match(Crash.class, c -> onCrash())
                .build();
    }

    private void onNewOrder(NewOrder m) {
        arrived.add(m.order());
        wake();
    }

    private void onRun() {
        if (stopped) return; // a Run already scheduled when the drain was answered
        if (crashNextCycle) throw new IllegalStateException("injected fault: engine " + part.engine() + " fails (FAULTS=on)");
        List<Order> batch = new ArrayList<>(arrived);
        arrived.clear();
        part.limit().release(batch.size()); // joined now: room for as many new orders
        Cycle cycle = engine.trade(System.currentTimeMillis(), batch);
        if (cycle.sales().isEmpty()) {
            engine.stored(cycle);
            cycleDone();
            return;
        }
        persisting = true;
        // The callback runs on whichever dispatcher thread completes the last insert:
        // it only sends a message, it never touches this actor's state.
        ActorRef self = getSelf();
        part.writer().store(cycle.sales(), () -> self.tell(new PersistenceComplete(cycle), ActorRef.noSender()));
    }

    private void onPersistenceComplete(PersistenceComplete m) {
        persisting = false;
        engine.stored(m.cycle());
        cycleDone();
    }

    private void onCrash() {
        crashNextCycle = true;
        wake();
    }

    /**
     * A cycle threw: this instance and its market go, the partition stays (the
     * default supervision restarts the actor with a new, empty market;
     * {@link TradingEngine#abandon}: the orders open here are forgotten, the
     * orders still in the mailbox survive the restart and join the new market,
     * sales already stored stay stored and counted). A drain being waited for
     * is passed on to the new instance.
     */
    @Override
    public void preRestart(Throwable reason, Optional<Object> message) throws Exception {
        part.limit().release(arrived.size()); // never joined, never will: give their places back
        int lost = engine.abandon(arrived);
        System.err.println("engine " + part.engine() + ": restarting after " + reason + "; " + lost + " open orders lost");
        for (ActorRef w : drainWaiters) getSelf().tell(Drain.INSTANCE, w);
        super.preRestart(reason, message);
    }

    private void onDrain() {
        if (stopped) {
            getSender().tell(new Drained(part.engine()), getSelf());
            return;
        }
        drainWaiters.add(getSender());
        if (!persisting && idle) answerDrainWaiters();
    }

    /** The cycle and its storage are over: answer a drain, then schedule the next cycle (or rest). */
    private void cycleDone() {
        answerDrainWaiters();
        if (stopped) return;
        if (arrived.isEmpty() && engine.openOrders() == 0) {
            idle = true; // an arriving order wakes the engine
        } else {
            scheduleRun();
        }
    }

    private void answerDrainWaiters() {
        if (drainWaiters.isEmpty() || part.limit().pending() > 0) return;
        for (ActorRef w : drainWaiters) w.tell(new Drained(part.engine()), getSelf());
        drainWaiters.clear();
        // the gateway was closed before the drain began: no order can come after this answer
        stopped = true;
    }

    private void wake() {
        if (idle && !stopped) {
            idle = false;
            scheduleRun();
        }
    }

    private void scheduleRun() {
        if (delay.isZero()) getSelf().tell(Run.INSTANCE, getSelf());
        else getTimers().startSingleTimer(RUN_TIMER, Run.INSTANCE, delay);
    }
}
