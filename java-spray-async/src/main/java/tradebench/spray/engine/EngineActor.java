package tradebench.spray.engine;

import akka.actor.AbstractActorWithTimers;
import akka.actor.ActorRef;
import akka.actor.Props;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tradebench.engine.Cycle;
import tradebench.engine.InboxLimit;
import tradebench.engine.TradingEngine;
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

    private enum Tick { INSTANCE }

    private static final Object CYCLE_TIMER = "cycle";

    private final int index;
    private final TradingEngine engine;
    private final AsyncSalesWriter writer;
    private final InboxLimit inbox;
    private final SaleIds saleIds;
    private final Duration delay;
    private final List<Order> arrived = new ArrayList<>();
    private final List<ActorRef> drainWaiters = new ArrayList<>();
    /** A cycle's sales are being stored: no other cycle may start. */
    private boolean persisting;
    /** Nothing to trade and nothing to time out: no cycle is scheduled until an order arrives. */
    private boolean idle = true;

    public static Props props(int index, TradingEngine engine, AsyncSalesWriter writer, InboxLimit inbox, SaleIds saleIds, long delayMs) {
        return Props.create(EngineActor.class, () -> new EngineActor(index, engine, writer, inbox, saleIds, delayMs));
    }

    private EngineActor(int index, TradingEngine engine, AsyncSalesWriter writer, InboxLimit inbox, SaleIds saleIds, long delayMs) {
        this.index = index;
        this.engine = engine;
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
        int joined = arrived.size();
        Cycle cycle = engine.trade(System.currentTimeMillis(), arrived);
        arrived.clear();
        inbox.release(joined);
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
