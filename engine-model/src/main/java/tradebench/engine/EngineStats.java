package tradebench.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/** The counters of one engine (docs/contract-details.md, /stats). */
public final class EngineStats {
    public final int engine;
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong salesPersisted = new AtomicLong();
    final AtomicLong cycles = new AtomicLong();
    final AtomicLong persistenceFailures = new AtomicLong();
    final SalesWindow window;
    private volatile int openOrders;
    private volatile IntSupplier pending = () -> 0;

    public EngineStats(int engine, SalesWindow window) {
        this.engine = engine;
        this.window = window;
    }

    public void accepted() {
        accepted.incrementAndGet();
    }

    public void cycle(int openOrders) {
        cycles.incrementAndGet();
        this.openOrders = openOrders;
    }

    /** The open orders of the engine's market, set without counting a cycle (a market that moved elsewhere: 0). */
    public void openOrders(int openOrders) {
        this.openOrders = openOrders;
    }

    public void stored(int sales) {
        if (sales == 0) return;
        salesPersisted.addAndGet(sales);
        window.add(System.currentTimeMillis(), sales);
    }

    public void persistenceFailure() {
        persistenceFailures.incrementAndGet();
    }

    /** Where the engine's pending count comes from (its inbox or its admission counter). */
    public void pendingFrom(IntSupplier pending) {
        this.pending = pending;
    }

    public long acceptedCount() {
        return accepted.get();
    }

    public long salesPersisted() {
        return salesPersisted.get();
    }

    public long cycles() {
        return cycles.get();
    }

    public long persistenceFailures() {
        return persistenceFailures.get();
    }

    public int openOrders() {
        return openOrders;
    }

    public int pendingOrders() {
        return pending.getAsInt();
    }
}
