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
        List<LoadWorker> workers = new ArrayList<>(options.concurrency());
        List<Thread> threads = new ArrayList<>(options.concurrency());
        Thread.Builder builder = options.virtualThreads() ? Thread.ofVirtual().name("worker-", 0)
                : Thread.ofPlatform().daemon(true).stackSize(256 * 1024).name("worker-", 0);
        for (int i = 0; i < options.concurrency(); i++) {
            LoadWorker w = new LoadWorker(i, options, tl, progress);
            workers.add(w);
            threads.add(builder.start(w));
        }
        Thread reporter = Thread.ofPlatform().daemon(true).name("progress").start(() -> reportProgress(progress, tl));

        DbFigures.Snapshot before = null;
        if (db != null) {
            sleepUntil(tl.measureStartNs());
            before = db.snapshot();
        }
        sleepUntil(tl.measureEndNs());
        DbFigures.Snapshot after = db == null ? null : db.snapshot();
        // A worker still waiting for an answer finishes it (or times out) before the merge.
        for (Thread t : threads) t.join();
        reporter.interrupt();
        reporter.join(1000);

        Histogram latency = LoadWorker.newHistogram();
        Histogram uncorrected = LoadWorker.newHistogram();
        StatusCounts counts = new StatusCounts();
        long notSent = 0;
        for (LoadWorker w : workers) {
            latency.add(w.latency);
            uncorrected.add(w.uncorrected);
            counts.addAll(w.counts);
            notSent += w.notSent;
        }
        LoadResult result = new LoadResult(options, latency, uncorrected, counts, notSent,
                tl.wallMs(tl.measureStartNs()), tl.wallMs(tl.measureEndNs()), tl.measuredSeconds());
        if (db != null) {
            // A sale made just before the window's end may still be in flight to the table.
            Thread.sleep(1000);
            Map<String, Object> figures = new LinkedHashMap<>(db.salesInWindow(result.windowStartMs, result.windowEndMs));
            figures.put("counters", DbFigures.deltas(before, after));
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
