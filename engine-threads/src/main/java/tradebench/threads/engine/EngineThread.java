package tradebench.threads.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import tradebench.engine.EngineStats;
import tradebench.engine.Inbox;
import tradebench.engine.OrderRegistry;
import tradebench.engine.SalesPersister;
import tradebench.engine.ThreadKind;
import tradebench.engine.TradingEngine;
import tradebench.model.Market;
import tradebench.model.Order;

/**
 * One engine of the market: its inbox and the thread that owns its orders.
 *
 * <p>The thread runs cycles forever (contract section 1): take everything in the
 * inbox, join + time out + trade, store the cycle's sales with a blocking
 * writer, sleep {@code DELAY_MS}. Request threads only ever add to the inbox
 * (lock-free), so no lock is held while the market trades and the market is
 * never touched by two threads — the original's {@code newPurchaseOrders} /
 * {@code newSalesOrders} hand-over, without its ConcurrentModificationException.
 *
 * <p>A cycle that throws does not take the partition down: the thread logs it
 * and starts again with a fresh market ({@link TradingEngine#abandon}: the open
 * orders of the failed market are forgotten, the sales already stored stay
 * stored); the inbox is kept. With FAULTS=on,
 * {@code POST /faults/crash-engine?engine=N} makes engine N's next cycle throw.
 */
public final class EngineThread {
    private static final Comparator<Order> BY_ID = Comparator.comparingLong(o -> o.id);
    /** Between restarts after a failed cycle: a market that fails at once must not spin. */
    private static final long RESTART_PAUSE_MS = 100;

    private final int engine;
    private final Inbox inbox;
    private final Supplier<Market> markets;
    private final long timeoutMs;
    private final long delayNanos;
    private final EngineStats stats;
    private final OrderRegistry registry;
    private final SalesPersister writer;
    /** Request threads between "is the door open?" and their inbox offer; the drain waits for 0. */
    private final AtomicInteger offering = new AtomicInteger();
    private volatile boolean doorClosed;
    private volatile boolean stopping;
    /** FAULTS=on: the next cycle throws, as a bug in it would. */
    private volatile boolean crashRequested;
    private volatile int restarts;
    private Thread thread;

    EngineThread(int engine, int inboxLimit, Supplier<Market> markets, long timeoutMs, long delayMs,
                 EngineStats stats, OrderRegistry registry, SalesPersister writer) {
        this.engine = engine;
        this.inbox = new Inbox(inboxLimit);
        this.markets = markets;
        this.timeoutMs = timeoutMs;
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs);
        this.stats = stats;
        this.registry = registry;
        this.writer = writer;
        stats.pendingFrom(inbox::pending);
    }

    void start(ThreadKind kind) {
        thread = kind.start("engine-" + engine, this::run);
    }

    /** A request thread hands an order over; false (503) when the inbox is full or the engine is draining. */
    boolean offer(Order order) {
        offering.incrementAndGet();
        try {
            return !doorClosed && inbox.offer(order);
        } finally {
            offering.decrementAndGet();
        }
    }

    /** Drain, step 1: no order gets in any more. */
    void closeDoor() {
        doorClosed = true;
    }

    /**
     * Drain, step 2: once no request thread is still between the door and the
     * inbox, the inbox only shrinks; the thread runs cycles until it is empty
     * (every sale stored) and ends.
     */
    void stopWhenEmpty() {
        while (offering.get() > 0) Thread.onSpinWait();
        stopping = true;
        LockSupport.unpark(thread); // cut the DELAY_MS sleep short
    }

    void join() throws InterruptedException {
        thread.join();
    }

    /** Fault injection (docs/contract-details.md): the engine thread throws at the start of its next cycle. */
    void crash() {
        crashRequested = true;
    }

    public int restarts() {
        return restarts;
    }

    private void run() {
        List<Order> arrived = new ArrayList<>();
        while (true) {
            TradingEngine trading = new TradingEngine(markets.get(), timeoutMs, stats, registry);
            try {
                cycleUntilStopped(trading, arrived);
                return;
            } catch (Throwable t) { // whatever broke the cycle, the partition must go on trading
                int lost = trading.abandon(arrived); // the orders taken from the inbox for the failed cycle
                restarts++;
                System.err.println("engine " + engine + ": a cycle failed, restarting with an empty market ("
                        + lost + " open orders lost, stored sales kept): " + t);
                t.printStackTrace();
                arrived.clear();
                sleepUnlessStopping(TimeUnit.MILLISECONDS.toNanos(RESTART_PAUSE_MS));
            }
        }
    }

    private void cycleUntilStopped(TradingEngine trading, List<Order> arrived) {
        while (!(stopping && inbox.isEmpty())) {
            if (crashRequested) {
                crashRequested = false;
                throw new IllegalStateException("fault injection: engine " + engine + " crashed");
            }
            arrived.clear();
            inbox.drainTo(arrived);
            // Two request threads may enqueue in the other order than they got their ids:
            // within a cycle, join in acceptance order (ids increase with it).
            if (arrived.size() > 1) arrived.sort(BY_ID);
            trading.runBlocking(System.currentTimeMillis(), arrived, writer);
            arrived.clear();
            sleepUnlessStopping(delayNanos);
        }
    }

    private void sleepUnlessStopping(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left;
        while (!stopping && (left = deadline - System.nanoTime()) > 0) LockSupport.parkNanos(this, left);
    }
}
