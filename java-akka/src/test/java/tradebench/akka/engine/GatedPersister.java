package tradebench.akka.engine;

import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import tradebench.engine.SalesPersister;
import tradebench.model.Sale;
import tradebench.testing.EngineActorContract;

/**
 * The real JDBC writer behind a gate the test opens: while it is closed a
 * cycle's sales stay "being stored". Records the thread each write runs on and
 * whether two writes of one engine ever overlapped.
 */
final class GatedPersister implements EngineActorContract.Gate {
    private final SalesPersister real;
    private final Semaphore gate = new Semaphore(0);
    private final Semaphore entered = new Semaphore(0);
    private volatile boolean gated;
    final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    volatile String lastThread = "";

    GatedPersister(SalesPersister real) {
        this.real = real;
    }

    @Override
    public void shut() {
        gated = true;
    }

    @Override
    public boolean awaitHeld(long ms) throws InterruptedException {
        return entered.tryAcquire(ms, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void open() {
        gated = false;
        gate.release(1000);
    }

    @Override
    public int stores() {
        return calls.get();
    }

    @Override
    public void store(List<Sale> sales, Runnable stored) {
        calls.incrementAndGet();
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        lastThread = Thread.currentThread().getName();
        try {
            if (gated) {
                entered.release();
                gate.acquireUninterruptibly();
            }
            real.store(sales, stored);
        } finally {
            inFlight.decrementAndGet();
        }
    }
}
