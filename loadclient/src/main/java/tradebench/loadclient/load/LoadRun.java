package tradebench.loadclient.load;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One {@code load} run: starts the workers, prints a progress line every few
 * seconds, reads the database counters at both ends of the measured window,
 * and merges the workers' histograms and counts once they have stopped.
 */
public final class LoadRun {

    /** Wait after the window before counting SALES rows: the last sales of the window are still being stored. */
    static final long SETTLE_MS = 1000;

    private final LoadOptions options;
    private final PrintStream out;

    public LoadRun(LoadOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public LoadResult run() throws SQLException, InterruptedException {
        // Open the database first: a wrong --db-url should fail before minutes of load, not after.
        DbFigures db = options.dbUrl() == null ? null : new DbFigures(options.dbUrl());
        try {
            return runWith(db);
        } finally {
            if (db != null) db.close();
        }
    }

    private LoadResult runWith(DbFigures db) throws SQLException, InterruptedException {
        Progress progress = new Progress();
        Timeline tl = Timeline.starting(System.nanoTime(), System.currentTimeMillis(), options.warmupS(), options.durationS());
        List<WorkerFigures> workers = new ArrayList<>(options.concurrency());
        List<Thread> threads = new ArrayList<>();
        if (options.nioClient()) {
            // One event loop per core (never more loops than connections); connection i goes to loop i mod loops.
            int loops = Math.min(options.concurrency(), Runtime.getRuntime().availableProcessors());
            List<NioLoop> nio = new ArrayList<>();
            for (int l = 0; l < loops; l++) nio.add(new NioLoop(options, tl));
            for (int i = 0; i < options.concurrency(); i++) workers.add(nio.get(i % loops).add(i, progress));
            for (int l = 0; l < loops; l++) threads.add(Thread.ofPlatform().name("loop-" + l).start(nio.get(l)));
        } else {
            Thread.Builder builder = options.virtualThreads() ? Thread.ofVirtual().name("worker-", 0)
                    : Thread.ofPlatform().daemon(true).stackSize(256 * 1024).name("worker-", 0);
            for (int i = 0; i < options.concurrency(); i++) {
                LoadWorker w = new LoadWorker(i, options, tl, progress);
                workers.add(w);
                threads.add(builder.start(w));
            }
        }
        Thread reporter = Thread.ofPlatform().daemon(true).name("progress").start(() -> reportProgress(progress, tl));

        DbFigures.Snapshot before = null;
        if (db != null) {
            sleepUntil(tl.measureStartNs());
            before = db.snapshot();
        }
        sleepUntil(tl.measureEndNs());
        // A worker still waiting for an answer finishes it (or times out) before the merge.
        for (Thread t : threads) t.join();
        reporter.interrupt();
        reporter.join(1000);

        Histogram latency = WorkerFigures.newHistogram();
        Histogram uncorrected = WorkerFigures.newHistogram();
        StatusCounts counts = new StatusCounts();
        long notSent = 0;
        for (WorkerFigures w : workers) {
            latency.add(w.latency);
            uncorrected.add(w.uncorrected);
            counts.addAll(w.counts);
            notSent += w.notSent;
        }
        LoadResult result = new LoadResult(options, latency, uncorrected, counts, notSent,
                tl.wallMs(tl.measureStartNs()), tl.wallMs(tl.measureEndNs()), tl.measuredSeconds());
        if (db != null) {
            // A sale made just before the window's end may still be in flight to the table.
            Thread.sleep(SETTLE_MS);
            // The end snapshot is taken with the count, after the settle: the counters then
            // cover every insert the count can see (and a little more).
            DbFigures.Snapshot after = db.snapshot();
            long afterMs = System.currentTimeMillis();
            Map<String, Object> figures = new LinkedHashMap<>(db.salesInWindow(result.windowStartMs, result.windowEndMs));
            Map<String, Object> counters = new LinkedHashMap<>(DbFigures.deltas(before, after));
            counters.put("fromMs", result.windowStartMs);
            counters.put("toMs", afterMs);
            figures.put("counters", counters);
            result.db = figures;
        }
        return result;
    }

    private void reportProgress(Progress progress, Timeline tl) {
        long step = (long) (options.progressS() * 1e9);
        long next = tl.startNs() + step;
        try {
            while (true) {
                sleepUntil(next);
                out.println(progress.line(System.nanoTime(), tl));
                out.flush();
                next += step;
            }
        } catch (InterruptedException e) {
            // the run is over
        }
    }

    private static void sleepUntil(long ns) throws InterruptedException {
        long now;
        while ((now = System.nanoTime()) < ns) {
            TimeUnit.NANOSECONDS.sleep(ns - now);
        }
    }
}
