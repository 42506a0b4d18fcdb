package tradebench.spray.engine;

import akka.actor.ActorRef;
import akka.actor.TimerScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import tradebench.engine.Cycle;
import tradebench.engine.EngineProtocol.Run;
import tradebench.engine.InboxLimit;
import tradebench.engine.SalesPersister;
import tradebench.engine.TradingEngine;
import tradebench.model.Order;

/**
 * One engine's cycle as the Akka HTTP designs' actors run it, inside the actor
 * that owns it (java-spray-async's {@code EngineActor}, a cluster member's
 * {@code EngineEntity}):
 * the orders that arrived since the last cycle join the market, it trades and
 * times out, the sales' inserts are fired with no thread waiting for them, and
 * only once they are stored may the next cycle come, {@code DELAY_MS} later.
 * Nothing here is touched but from the owning actor's messages; the writer's
 * callback only sends {@link Stored}.
 */
public final class EngineCycle {
    private static final Object RUN_TIMER = "run";

    /** A cycle's sales are stored (or it made none): {@code joined} are the orders that joined the market in it. */
    public record Stored(Cycle cycle, List<Order> joined) {
    }

    private final int engine;
    private final TradingEngine trading;
    private final SalesPersister writer;
    /** INBOX_LIMIT's counter, released as orders join; null where the admission is counted elsewhere. */
    private final InboxLimit limit;
    private final Duration delay;
    /** Orders received since the last cycle, in arrival (mailbox) order. */
    private final List<Order> arrived = new ArrayList<>();
    private boolean persisting;
    private boolean crashNext;

    public EngineCycle(int engine, TradingEngine trading, SalesPersister writer, InboxLimit limit, long delayMs) {
        this.engine = engine;
        this.trading = trading;
        this.writer = writer;
        this.limit = limit;
        this.delay = Duration.ofMillis(delayMs);
    }

    /** The order joins the market at the next cycle. */
    public void arrive(Order o) {
        arrived.add(o);
    }

    /** Orders older than any that arrived so far (a partition's handed-over ones): they join first. */
    public void arriveFirst(List<Order> older) {
        arrived.addAll(0, older);
    }

    /** The orders that have not joined yet, oldest first. */
    public List<Order> arrived() {
        return Collections.unmodifiableList(arrived);
    }

    /** A cycle's sales are being stored: no other cycle may start. */
    public boolean persisting() {
        return persisting;
    }

    /** Orders to join or open orders to trade and time out: a next cycle is needed. */
    public boolean hasWork() {
        return !arrived.isEmpty() || trading.openOrders() > 0;
    }

    /** Test-only (FAULTS=on): the next cycle throws. */
    public void crashNext() {
        crashNext = true;
    }

    /**
     * One cycle: join, time out, trade, and fire its inserts. Returns its
     * {@link Stored} at once when it made no sale; otherwise returns null and
     * {@code self} is told {@link Stored} once the last insert is acknowledged.
     */
    public Stored run(ActorRef self) {
        if (crashNext) throw new IllegalStateException("injected fault: engine " + engine + " fails (FAULTS=on)");
        List<Order> batch = new ArrayList<>(arrived);
        arrived.clear();
        if (limit != null) limit.release(batch.size()); // joined now: room for as many new orders
        Cycle cycle = trading.trade(System.currentTimeMillis(), batch);
        Stored done = new Stored(cycle, batch);
        if (cycle.sales().isEmpty()) {
            trading.stored(cycle);
            return done;
        }
        persisting = true;
        // The callback runs on whichever dispatcher thread completes the last insert:
        // it only sends a message, it never touches the actor's state.
        writer.store(cycle.sales(), () -> self.tell(done, ActorRef.noSender()));
        return null;
    }

    /** {@link Stored} came back: the cycle's filled and timed-out orders take their statuses. */
    public void stored(Stored m) {
        persisting = false;
        trading.stored(m.cycle());
    }

    /** The next cycle {@code DELAY_MS} from now (with 0: at once, behind the messages already in the mailbox). */
    public void schedule(ActorRef self, TimerScheduler timers) {
        if (delay.isZero()) self.tell(Run.INSTANCE, self);
        else timers.startSingleTimer(RUN_TIMER, Run.INSTANCE, delay);
    }

    /**
     * The actor failed and its market goes: the orders open there and those
     * that never joined are forgotten (their places in INBOX_LIMIT given
     * back); returns how many open orders were lost.
     */
    public int abandon() {
        if (limit != null) limit.release(arrived.size());
        return trading.abandon(arrived);
    }
}
