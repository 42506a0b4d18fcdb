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
import tradebench.engine.EngineStats;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.TradingEngine;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.spray.db.AsyncSalesWriter;

/**
 * One engine (one partition of the products) as an actor: the 2014 original's
 * engine actor. Orders arrive as messages and wait in {@link #arrived} until
 * the next cycle; a cycle trades, fires its inserts and returns at once; the
 * writer's callback sends {@link PersistenceComplete}, and only then is the
 * next cycle scheduled, {@code DELAY_MS} later, on Akka's scheduler. No thread
 * ever waits for the database.
 */
public final class EngineActor extends AbstractActorWithTimers {

    /** An order for this engine (already admitted against INBOX_LIMIT). */
    public record Arrived(Order order) {
    }

    /** Every sale of {@code cycle} is stored; {@code saleIds} are the ids the driver read back. */
    public record PersistenceComplete(Cycle cycle, long[] saleIds) {
    }

    /** Reply {@link Drained} once every admitted order has joined a cycle and every sale is stored. */
    public record Drain() {
    }

    public record Drained(int engine) {
    }

    /** Test-only (FAULTS=on, docs/contract.md): the next cycle throws, as a bug in the market would. */
    public record Crash() {
    }

    private enum Tick { INSTANCE }

    private static final Object CYCLE_TIMER = "cycle";

    private final int index;
    private final Market market;
    private final TradingEngine engine;
    private final OrderRegistry registry;
    private final AsyncSalesWriter writer;
    private final InboxLimit inbox;
    private final SaleIds saleIds;
    private final Duration delay;
    private final List<Order> arrived = new ArrayList<>();
    /** The orders of the cycle being traded: lost if the cycle throws. */
    private List<Order> joining = List.of();
    private boolean crashNextCycle;
    private final List<ActorRef> drainWaiters = new ArrayList<>();
    /** A cycle's sales are being stored: no other cycle may start. */
    private boolean persisting;
    /** Nothing to trade and nothing to time out: no cycle is scheduled until an order arrives. */
    private boolean idle = true;

    /** What an engine is made of; its market is made anew by each instance (a restart starts empty). */
    public record Parts(int index, Supplier<Market> markets, long timeoutMs, EngineStats stats, OrderRegistry registry,
                        AsyncSalesWriter writer, InboxLimit inbox, SaleIds saleIds, long delayMs) {
    }

    public static Props props(Parts parts) {
        return Props.create(EngineActor.class, () -> new EngineActor(parts));
    }

    private EngineActor(Parts p) {
        this(p.index(), p.markets().get(), p.timeoutMs(), p.stats(), p.registry(), p.writer(), p.inbox(), p.saleIds(), p.delayMs());
    }

    private EngineActor(int index, Market market, long timeoutMs, EngineStats stats, OrderRegistry registry,
                        AsyncSalesWriter writer, InboxLimit inbox, SaleIds saleIds, long delayMs) {
        this.index = index;
        this.market = market;
        this.engine = new TradingEngine(market, timeoutMs, stats, registry);
        this.registry = registry;
        this.writer = writer;
        this.inbox = inbox;
        this.saleIds = saleIds;
        this.delay = Duration.ofMillis(delayMs);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Arrived.class, this::onArrived)
                .matchEquals(Tick.INSTANCE, t -> onTick())
                .match(PersistenceComplete.class, this::onPersistenceComplete)
                .match(Drain.class, d -> onDrain())
                .match(Crash.class, c -> onCrash())
                .build();
    }

    private void onArrived(Arrived a) {
        arrived.add(a.order());
        if (idle) {
            idle = false;
            scheduleCycle();
        }
    }

    private void onTick() {
        if (crashNextCycle) throw new IllegalStateException("injected fault: engine " + index + " fails (FAULTS=on)");
        joining = new ArrayList<>(arrived);
        arrived.clear();
        inbox.release(joining.size()); // joined now: room for as many new orders
        Cycle cycle = engine.trade(System.currentTimeMillis(), joining);
        joining = List.of();
        if (cycle.sales().isEmpty()) {
            engine.stored(cycle);
            cycleDone();
            return;
        }
        persisting = true;
        // The callback runs on whichever dispatcher thread completes the last insert:
        // it only sends a message, it never touches this actor's state.
        ActorRef self = getSelf();
        writer.store(cycle.sales(), ids -> self.tell(new PersistenceComplete(cycle, ids), ActorRef.noSender()));
    }

    private void onPersistenceComplete(PersistenceComplete done) {
        persisting = false;
        saleIds.record(done.cycle().sales(), done.saleIds());
        engine.stored(done.cycle());
        cycleDone();
    }

    private void onCrash() {
        crashNextCycle = true;
        if (idle) {
            idle = false;
            scheduleCycle();
        }
    }

    /**
     * A cycle threw: this instance and its market go, the partition stays (the
     * default supervision restarts the actor with a new, empty market). The
     * orders that were open here are lost to the market (the registry forgets
     * them, so /orders/{id} says "unknown" and shows their stored fills); the
     * orders still in the mailbox survive the restart and join the new market.
     * Sales already stored stay stored and counted. A drain being waited for is
     * passed on to the new instance.
     */
    @Override
    public void preRestart(Throwable reason, Optional<Object> message) throws Exception {
        try {
            System.err.println("engine " + index + ": restarting after " + reason + "; " + market.openOrders() + " open orders lost");
            market.forEachOpen(registry::unregister);
        } catch (RuntimeException e) { // the market that threw may be beyond asking: the restart goes on
            System.err.println("engine " + index + ": cannot list the lost orders: " + e);
        }
        for (Order o : joining) registry.unregister(o);
        inbox.release(arrived.size()); // never joined, never will: give their places back
        for (Order o : arrived) registry.unregister(o);
        for (ActorRef w : drainWaiters) getSelf().tell(new Drain(), w);
        super.preRestart(reason, message);
    }

    private void onDrain() {
        drainWaiters.add(getSender());
        if (!persisting && idle) answerDrainWaiters();
    }

    /** The cycle and its storage are over: answer a drain, then schedule the next cycle (or rest). */
    private void cycleDone() {
        answerDrainWaiters();
        if (arrived.isEmpty() && engine.openOrders() == 0) {
            idle = true; // an arriving order wakes the engine
        } else {
            scheduleCycle();
        }
    }

    private void answerDrainWaiters() {
        if (drainWaiters.isEmpty() || inbox.pending() > 0) return;
        for (ActorRef w : drainWaiters) w.tell(new Drained(index), getSelf());
        drainWaiters.clear();
    }

    private void scheduleCycle() {
        if (delay.isZero()) getSelf().tell(Tick.INSTANCE, getSelf());
        else getTimers().startSingleTimer(CYCLE_TIMER, Tick.INSTANCE, delay);
    }
}
