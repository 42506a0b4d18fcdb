package tradebench.threads;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import tradebench.engine.ServiceStats;

/** The statistics line every 5 seconds (contract sections 3 and 8, docs/contract-details.md), on a daemon thread of its own. */
final class StatsLine implements AutoCloseable {
    private final ScheduledExecutorService timer;

    private StatsLine(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    static StatsLine every(long seconds, ServiceStats stats, PrintStream out) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("stats-line").daemon(true).factory());
        timer.scheduleAtFixedRate(() -> out.println(stats.line()), seconds, seconds, TimeUnit.SECONDS);
        return new StatsLine(timer);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
