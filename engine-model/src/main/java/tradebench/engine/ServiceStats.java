package tradebench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service's counters: per engine, and the answers that never reach one.
 * {@code /stats} renders them ({@code tradebench.wire.Answers}); the lines
 * printed to standard output are here.
 */
public final class ServiceStats {
    private final String variant;
    private final long startMs = System.currentTimeMillis();
    private final SalesWindow window = new SalesWindow();
    private final List<EngineStats> engines = new ArrayList<>();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong overloaded = new AtomicLong();

    public ServiceStats(String variant, int engineCount) {
        this.variant = variant;
        for (int i = 0; i < engineCount; i++) engines.add(new EngineStats(i, window));
    }

    public String variant() {
        return variant;
    }

    public EngineStats engine(int i) {
        return engines.get(i);
    }

    public List<EngineStats> engines() {
        return engines;
    }

    public void rejected() {
        rejected.incrementAndGet();
    }

    public void overloaded() {
        overloaded.incrementAndGet();
    }

    public long uptimeMs() {
        return System.currentTimeMillis() - startMs;
    }

    public long accepted() {
        return engines.stream().mapToLong(EngineStats::acceptedCount).sum();
    }

    public long salesPersisted() {
        return engines.stream().mapToLong(EngineStats::salesPersisted).sum();
    }

    public long salesLastMinute() {
        return window.lastMinute(System.currentTimeMillis());
    }

    public long persistenceFailures() {
        return engines.stream().mapToLong(EngineStats::persistenceFailures).sum();
    }

    public long openOrders() {
        return engines.stream().mapToLong(EngineStats::openOrders).sum();
    }

    public long pendingOrders() {
        return engines.stream().mapToLong(EngineStats::pendingOrders).sum();
    }

    public long overloadedCount() {
        return overloaded.get();
    }

    public long rejectedCount() {
        return rejected.get();
    }

    /** The line printed every 5 s (docs/contract-details.md). */
    public String line() {
        return "stats variant=" + variant + " accepted=" + accepted() + " rejected=" + rejected.get()
                + " overloaded=" + overloaded.get() + " sales=" + salesPersisted()
                + " salesLastMinute=" + salesLastMinute() + " open=" + openOrders() + " pending=" + pendingOrders()
                + " failures=" + persistenceFailures();
    }

    /** The last line at exit (docs/contract-details.md). */
    public String exitLine() {
        return "exit variant=" + variant + " accepted=" + accepted() + " sales=" + salesPersisted();
    }
}
