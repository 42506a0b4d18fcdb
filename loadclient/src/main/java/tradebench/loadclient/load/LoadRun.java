package tradebench.loadclient.load;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SentOrder;

/**
 * One {@code load} run: starts the workers, prints a progress line every few
 * seconds, reads the database counters at both ends of the measured window,
 * and merges the workers' histograms and counts once they have stopped.
 */
public final class LoadRun {

    /**
     * After the window, its SALES rows are counted once their count has stood still for SETTLE_QUIET_MS (the last
     * sales of the window are still being stored: a round trip or two), and at most SETTLE_MS after it. A fixed
     * second cost every window of a calibration a second, where the count stood still after 0.1-0.3 s.
     */
    static final long SETTLE_MS = 1000;
    static final long SETTLE_QUIET_MS = 300;
    static final long SETTLE_POLL_MS = 100;

    private final LoadOptions options;
    private final PrintStream out;

    public LoadRun(LoadOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public LoadResult run() throws SQLException, InterruptedException, IOException {
        // Open the database first: a wrong --db-url should fail before minutes of load, not after.
        DbFigures db = options.dbUrl() == null ? null : new DbFigures(options.dbUrl());
        try {
            return runWith(db);
        } finally {
            if (db != null) db.close();
        }
    }

    /** The run in its steps: start the clients, measure the window, merge what they counted, read the database. */
    private LoadResult runWith(DbFigures db) throws SQLException, InterruptedException, IOException {
        Progress progress = new Progress();
        Timeline tl = timeline(System.nanoTime(), System.currentTimeMillis());
        IdReservoir ids = options.viewClients() > 0 ? new IdReservoir() : null;
        List<WorkerFigures> workers = new ArrayList<>(options.concurrency());
        List<Thread> threads = new ArrayList<>();
        startOrders(tl, ids, progress, workers, threads);
        Progress viewProgress = new Progress();
        List<WorkerFigures> views = startViews(tl, ids, viewProgress, threads);
        Thread reporter = Thread.ofPlatform().daemon(true).name("progress")
                .start(() -> reportProgress(progress, views.isEmpty() ? null : viewProgress, tl));

        Map<String, Object> warmup = options.window().warmupAuto() ? warmUpUntilSteady(progress, tl) : warmUpFixed(progress, tl);
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

        LoadResult result = merged(workers, tl);
        result.warmup = warmup;
        if (options.detailed()) result.types = types(workers, views, tl);
        keepPlacedOrders(workers, result);
        result.halves = halves(workers, tl);
        writeHistogram(result);
        if (db != null) readDatabase(db, before, result);
        return result;
    }

    /** The order clients: event loops (--nio) or one thread per connection, each started. */
    private void startOrders(Timeline tl, IdReservoir ids, Progress progress, List<WorkerFigures> workers,
                             List<Thread> threads) {
        if (options.nioClient()) {
            // One event loop per core (never more loops than connections); connection i goes to loop i mod loops.
            int loops = Math.min(options.concurrency(), Runtime.getRuntime().availableProcessors());
            List<NioLoop> nio = new ArrayList<>();
            for (int l = 0; l < loops; l++) nio.add(new NioLoop(options, tl, ids));
            for (int i = 0; i < options.concurrency(); i++) workers.add(nio.get(i % loops).add(i, progress));
            for (int l = 0; l < loops; l++) threads.add(Thread.ofPlatform().name("loop-" + l).start(nio.get(l)));
            return;
        }
        Thread.Builder builder = options.virtualThreads() ? Thread.ofVirtual().name("worker-", 0)
                : Thread.ofPlatform().daemon(true).stackSize(256 * 1024).name("worker-", 0);
        for (int i = 0; i < options.concurrency(); i++) {
            LoadWorker w = new LoadWorker(i, options, tl, progress, ids);
            workers.add(w);
            threads.add(builder.start(w));
        }
    }

    /** The orders' histograms and counts over the window, merged once every client has stopped. */
    private LoadResult merged(List<WorkerFigures> workers, Timeline tl) {
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
        Timeline.Window window = tl.window();
        return new LoadResult(options, latency, uncorrected, counts, notSent,
                tl.wallMs(window.startNs()), tl.wallMs(window.endNs()), tl.measuredSeconds());
    }

    /** The orders/s of the window's two halves and their drift (the database's halves are added by readDatabase). */
    private static Map<String, Object> halves(List<WorkerFigures> workers, Timeline tl) {
        long firstHalf = 0;
        long secondHalf = 0;
        for (WorkerFigures w : workers) {
            firstHalf += w.firstHalf;
            secondHalf += w.secondHalf;
        }
        Timeline.Window window = tl.window();
        double first = firstHalf / ((window.midNs() - window.startNs()) / 1e9);
        double second = secondHalf / ((window.endNs() - window.midNs()) / 1e9);
        Map<String, Object> halves = new LinkedHashMap<>();
        halves.put("firstOrdersPerSecond", DbFigures.round1(first));
        halves.put("secondOrdersPerSecond", DbFigures.round1(second));
        halves.put("drift", first > 0 ? LoadResult.round3((second - first) / first) : null);
        return halves;
    }

    /** {@code --histogram-file}: the window's latency distribution, recorded in µs, written in ms. */
    private void writeHistogram(LoadResult result) throws IOException {
        if (options.histogramFile() == null) return;
        try (PrintStream h = new PrintStream(new FileOutputStream(options.histogramFile()), false, StandardCharsets.UTF_8)) {
            result.latency.outputPercentileDistribution(h, 1000.0);
        }
        result.histogramFile = options.histogramFile();
    }

    /** The window's sales and the database's counters over it, and the sales of each half (SALES.CREATED). */
    private static void readDatabase(DbFigures db, DbFigures.Snapshot before, LoadResult result)
            throws SQLException, InterruptedException {
        // A sale made just before the window's end may still be in flight to the table.
        settle(db, result.windowStartMs, result.windowEndMs);
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
        // The halves of the window in wall-clock ms, split at the middle millisecond.
        long midMs = result.windowStartMs + (result.windowEndMs - result.windowStartMs) / 2;
        result.halves.put("midMs", midMs);
        result.halves.put("firstSalesPerMinute", DbFigures.round1(
                db.salesBetween(result.windowStartMs, midMs) * 60_000.0 / (midMs - result.windowStartMs)));
        result.halves.put("secondSalesPerMinute", DbFigures.round1(
                db.salesBetween(midMs, result.windowEndMs) * 60_000.0 / (result.windowEndMs - midMs)));
    }

    /** The run's instants: the window after a fixed warm-up, at {@code --window-at}, or once the load is steady. */
    private Timeline timeline(long t0, long wall0) {
        if (options.windowAtMs() != null) {
            if (options.windowAtMs() <= wall0) {
                throw new IllegalStateException("--window-at " + options.windowAtMs() + " passed before the load could start");
            }
            return Timeline.startingAt(t0, wall0, options.windowAtMs(), options.window().durationS());
        }
        return options.window().warmupAuto() ? Timeline.startingOpenEnded(t0, wall0)
                : Timeline.starting(t0, wall0, options.window().warmupS(), options.window().durationS());
    }

    /**
     * The view clients, on event loops of their own (half the cores, at least one): an order's send is never queued
     * behind a view's on the same loop, and the orders' loops are those of a run without views.
     */
    private List<WorkerFigures> startViews(Timeline tl, IdReservoir ids, Progress viewProgress, List<Thread> threads) {
        List<WorkerFigures> views = new ArrayList<>(options.viewClients());
        if (options.viewClients() == 0) return views;
        int loops = Math.min(options.viewClients(), Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        List<NioLoop> nio = new ArrayList<>();
        for (int l = 0; l < loops; l++) nio.add(new NioLoop(options, tl, ids));
        for (int i = 0; i < options.viewClients(); i++) views.add(nio.get(i % loops).addView(i, viewProgress));
        for (int l = 0; l < loops; l++) threads.add(Thread.ofPlatform().name("view-loop-" + l).start(nio.get(l)));
        return views;
    }

    /** The figures per request type (the orders' and, with view clients, the views'), keyed as in the JSON. */
    private Map<String, TypeFigures> types(List<WorkerFigures> orders, List<WorkerFigures> views, Timeline tl) {
        Timeline.Window w = tl.window();
        long startMs = tl.wallMs(w.startNs());
        long windowMs = (w.endNs() - w.startNs()) / 1_000_000;
        Map<String, TypeFigures> types = new LinkedHashMap<>();
        types.put(RequestType.ORDER.key, new TypeFigures(RequestType.ORDER, orders, options.fixedRate(), options.phases(), startMs, windowMs));
        if (!views.isEmpty()) {
            types.put(RequestType.VIEW.key, new TypeFigures(RequestType.VIEW, views, options.viewFixedRate(), options.phases(), startMs, windowMs));
        }
        return types;
    }

    /** {@code --orders-out}: every order of the run answered 202, warm-up and drain included (all of them are in SALES). */
    private void keepPlacedOrders(List<WorkerFigures> orders, LoadResult result) throws IOException {
        long withoutId = 0;
        List<SentOrder> placed = new ArrayList<>();
        for (WorkerFigures w : orders) {
            withoutId += w.acceptedWithoutId;
            if (w.accepted != null) placed.addAll(w.accepted);
        }
        result.acceptedWithoutId = withoutId;
        if (options.ordersOut() == null) return;
        placed.sort(Comparator.comparingLong(SentOrder::id));
        OrderLog.write(options.ordersOut(), placed);
        result.ordersWritten = placed.size();
    }

    /**
     * Until the count of the window's sales has not moved for SETTLE_QUIET_MS, at most SETTLE_MS: a sale made just
     * before the window's end is stored a round trip later (an engine that answers before it stores, later still).
     */
    private static void settle(DbFigures db, long fromMs, long toMs) throws SQLException, InterruptedException {
        long start = System.nanoTime();
        long quietSince = start;
        long last = db.salesBetween(fromMs, toMs);
        while (true) {
            long now = System.nanoTime();
            if (now - start >= TimeUnit.MILLISECONDS.toNanos(SETTLE_MS)
                    || now - quietSince >= TimeUnit.MILLISECONDS.toNanos(SETTLE_QUIET_MS)) {
                return;
            }
            Thread.sleep(SETTLE_POLL_MS);
            long count = db.salesBetween(fromMs, toMs);
            if (count != last) {
                last = count;
                quietSince = System.nanoTime();
            }
        }
    }

    /**
     * {@code --warmup auto}: consecutive windows of {@code --steady-window} s;
     * after each, its orders/s (answers of any status per second) is compared
     * with the previous window's; when they differ by less than
     * {@code --steady-tolerance} (relative to the larger) the measured window
     * opens at once. After {@code --warmup-max} s it opens anyway, not steady.
     */
    private Map<String, Object> warmUpUntilSteady(Progress progress, Timeline tl) throws InterruptedException {
        long windowNs = (long) (options.window().steadyWindowS() * 1e9);
        long maxEndNs = tl.startNs() + (long) (options.window().warmupMaxS() * 1e9);
        List<Double> windows = new ArrayList<>();
        long lastCount = 0;
        long lastNs = tl.startNs();
        Double previous = null;
        boolean steady = false;
        while (true) {
            long boundary = lastNs + windowNs;
            if (boundary > maxEndNs) {
                sleepUntil(maxEndNs);
                break;
            }
            sleepUntil(boundary);
            long now = System.nanoTime();
            long count = progress.answered.sum();
            double rate = (count - lastCount) / ((now - lastNs) / 1e9);
            windows.add(DbFigures.round1(rate));
            Double change = previous == null ? null : relativeChange(previous, rate);
            steady = change != null && change < options.window().steadyTolerance();
            out.printf("warmup window=%d t=%.0fs orders/s=%.0f change=%s%s%n", windows.size(), (now - tl.startNs()) / 1e9,
                    rate, change == null ? "-" : String.format("%.1f%%", change * 100), steady ? " steady" : "");
            out.flush();
            if (steady) break;
            previous = rate;
            lastCount = count;
            lastNs = now;
        }
        long openNs = System.nanoTime();
        tl.openWindow(openNs, options.window().durationS());
        double seconds = (openNs - tl.startNs()) / 1e9;
        out.printf(steady ? "warmup steady after %.1fs: measuring %.1fs%n"
                : "warmup NOT steady after %.1fs (--warmup-max): measuring %.1fs anyway%n", seconds, options.window().durationS());
        out.flush();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", "auto");
        m.put("seconds", LoadResult.round3(seconds));
        m.put("steady", steady);
        m.put("windowsOrdersPerSecond", windows);
        return m;
    }

    /** A fixed warm-up: its windows' orders/s are recorded too (whole windows only), for comparison. */
    private Map<String, Object> warmUpFixed(Progress progress, Timeline tl) throws InterruptedException {
        long windowNs = (long) (options.window().steadyWindowS() * 1e9);
        List<Double> windows = new ArrayList<>();
        long lastCount = 0;
        long lastNs = tl.startNs();
        while (lastNs + windowNs <= tl.measureStartNs()) {
            sleepUntil(lastNs + windowNs);
            long now = System.nanoTime();
            long count = progress.answered.sum();
            windows.add(DbFigures.round1((count - lastCount) / ((now - lastNs) / 1e9)));
            lastCount = count;
            lastNs = now;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", "fixed");
        // With --window-at the warm-up is what was left until then when the load started.
        m.put("seconds", options.windowAtMs() == null ? options.window().warmupS()
                : LoadResult.round3((tl.measureStartNs() - tl.startNs()) / 1e9));
        m.put("steady", null);
        m.put("windowsOrdersPerSecond", windows);
        return m;
    }

    /** |a - b| / max(a, b); null when both are 0 (no answers at all is not steady). */
    static Double relativeChange(double a, double b) {
        double max = Math.max(a, b);
        return max > 0 ? Math.abs(a - b) / max : null;
    }

    private void reportProgress(Progress progress, Progress views, Timeline tl) {
        long step = (long) (options.window().progressS() * 1e9);
        long next = tl.startNs() + step;
        try {
            while (true) {
                sleepUntil(next);
                long now = System.nanoTime();
                out.println(progress.line(now, tl) + (views == null ? "" : views.viewsPart(now, tl)));
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
