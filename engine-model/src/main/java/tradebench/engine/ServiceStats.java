package tradebench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The service's counters: per engine, and the answers that never reach one. */
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

    public long accepted() {
        return engines.stream().mapToLong(EngineStats::acceptedCount).sum();
    }

    public long salesPersisted() {
        return engines.stream().mapToLong(EngineStats::salesPersisted).sum();
    }

    public long overloadedCount() {
        return overloaded.get();
    }

    public long rejectedCount() {
        return rejected.get();
    }

    public String json() {
        long now = System.currentTimeMillis();
        StringBuilder sb = new StringBuilder(256 + engines.size() * 160);
        sb.append("{\"variant\":").append(JsonText.quote(variant)).append(",\"uptimeMs\":").append(now - startMs)
                .append(",\"accepted\":").append(accepted()).append(",\"rejected\":").append(rejected.get())
                .append(",\"overloaded\":").append(overloaded.get())
                .append(",\"salesPersisted\":").append(salesPersisted())
                .append(",\"salesLastMinute\":").append(window.lastMinute(now))
                .append(",\"persistenceFailures\":").append(engines.stream().mapToLong(EngineStats::persistenceFailures).sum())
                .append(",\"openOrders\":").append(engines.stream().mapToLong(EngineStats::openOrders).sum())
                .append(",\"pendingOrders\":").append(engines.stream().mapToLong(EngineStats::pendingOrders).sum())
                .append(",\"engines\":[");
        for (int i = 0; i < engines.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(engines.get(i).json());
        }
        return sb.append("]}").toString();
    }

    /** The line printed every 5 s (docs/contract.md). */
    public String line() {
        long now = System.currentTimeMillis();
        return "stats variant=" + variant + " accepted=" + accepted() + " rejected=" + rejected.get()
                + " overloaded=" + overloaded.get() + " sales=" + salesPersisted()
                + " salesLastMinute=" + window.lastMinute(now)
                + " open=" + engines.stream().mapToLong(EngineStats::openOrders).sum()
                + " pending=" + engines.stream().mapToLong(EngineStats::pendingOrders).sum()
                + " failures=" + engines.stream().mapToLong(EngineStats::persistenceFailures).sum();
    }

    /** The last line at exit (docs/contract.md). */
    public String exitLine() {
        return "exit variant=" + variant + " accepted=" + accepted() + " sales=" + salesPersisted();
    }
}
