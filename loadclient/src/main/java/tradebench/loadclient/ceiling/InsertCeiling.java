package tradebench.loadclient.ceiling;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * {@code loadclient insert-ceiling}: how many SALES rows per second this
 * machine's database takes with N connections inserting in a loop, the ceiling
 * the variants' sales/s is compared with.
 *
 * <p>Each connection loops the statement the variants' sales writer sends
 * (engine-model's JdbcSalesWriter): {@code INSERT INTO SALES (...) VALUES
 * (...) ON DUPLICATE KEY UPDATE ID = ID} over the real SALES table, autocommit,
 * prepared once per connection (single rows: on the server, see
 * {@link #statementKind}) — one row per statement with
 * {@code --batch-rows 1} (the per-sale mode), K rows per statement otherwise
 * (the batch mode). The rows have negative PO_ID/SO_ID (the services' ids are
 * positive), increasing like the services' ids and unique per row, and the
 * names {@code ceiling-b}/{@code ceiling-s}; they are deleted at the end, and
 * at the start any left by an interrupted run.
 */
public final class InsertCeiling {

    static final String BUYER = "ceiling-b";
    static final String SELLER = "ceiling-s";
    /** The first id: far below zero, counting up towards it (never reaching it in any run). */
    static final long FIRST_ID = -4_000_000_000_000_000_000L;
    private static final String COLUMNS =
            "INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES ";
    private static final String ROW = "(?,?,?,?,?,?,?,?)";
    private static final String IDEMPOTENT = " ON DUPLICATE KEY UPDATE ID = ID";
    private static final BigDecimal PRICE = new BigDecimal("17.05");
    private static final int DELETE_CHUNK = 20_000;

    private final CeilingOptions options;
    private final PrintStream out;
    private final AtomicLong nextId = new AtomicLong(FIRST_ID);
    private final AtomicLong rowsSoFar = new AtomicLong();
    /**
     * The measured window, in System.nanoTime(): set once, by the main thread, at the start
     * (fixed warm-up) or when the warm-up is steady (--warmup auto); the loopers read it
     * before each statement.
     */
    private volatile long windowStartNs = Long.MAX_VALUE;
    private volatile long windowEndNs = Long.MAX_VALUE;
    /** Statements rolled back by a deadlock and sent again (all phases). */
    private final AtomicLong retries = new AtomicLong();

    /**
     * How the statement goes to the server, as the variants' writers send it: a single-row INSERT as a
     * server-side prepared statement (parsed once per connection, then only executed: engine-jdbc's pool,
     * jasync's and mysql2's prepared statements), a multi-row INSERT as text (the variants build it as
     * text: engine-model's SalesTable.insertText, mysql2's query).
     */
    static java.util.Properties statementKind(int batchRows) {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("useServerPrepStmts", Boolean.toString(batchRows == 1));
        return p;
    }

    public InsertCeiling(CeilingOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** The figures of one run (the JSON document). */
    public record Result(Map<String, Object> json, long rows, long statements, double rowsPerSecond, long leftOver, long deleted) {}

    static String statement(int rows) {
        StringBuilder sb = new StringBuilder(COLUMNS);
        for (int i = 0; i < rows; i++) sb.append(i > 0 ? "," : "").append(ROW);
        return sb.append(IDEMPOTENT).toString();
    }

    public Result run() throws SQLException, InterruptedException {
        long leftOver;
        try (Connection c = DriverManager.getConnection(options.dbUrl())) {
            leftOver = deleteOwnRows(c);
        }
        if (leftOver > 0) out.println("insert-ceiling: deleted " + leftOver + " rows left by an interrupted run");
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < options.connections(); i++) {
                Connection c = DriverManager.getConnection(options.dbUrl(), statementKind(options.batchRows()));
                c.setAutoCommit(true);
                connections.add(c);
            }
            Result r = measure(connections, leftOver);
            return r;
        } finally {
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // closing at the end
                }
            }
        }
    }

    /** The ceiling in its steps: the inserting threads started, watched until they stop, their rows deleted. */
    private Result measure(List<Connection> connections, long leftOver) throws SQLException, InterruptedException {
        long startNs = System.nanoTime();
        long startEpochMs = System.currentTimeMillis(); // the window in epoch ms: the harness samples the database's CPU in it
        if (!options.window().warmupAuto()) openWindow(startNs + (long) (options.window().warmupS() * 1e9));
        AtomicReference<SQLException> failure = new AtomicReference<>();
        List<Looper> loopers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections.size(); i++) {
            Looper l = new Looper(connections.get(i), failure);
            loopers.add(l);
            threads.add(Thread.ofPlatform().name("insert-" + i).start(l));
        }
        SteadyWatch steady = options.window().warmupAuto() ? new SteadyWatch(startNs) : null;
        watch(threads, steady, startNs);
        long windowStart = windowStartNs;
        long windowEnd = windowEndNs;
        for (Thread t : threads) t.join();
        long deleted;
        try (Connection c = DriverManager.getConnection(options.dbUrl())) {
            deleted = deleteOwnRows(c);
        }
        if (failure.get() != null) throw failure.get();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("connections", options.connections());
        json.put("batchRows", options.batchRows());
        json.put("durationS", options.window().durationS());
        json.put("warmupS", round1((windowStart - startNs) / 1e9));
        json.put("warmup", steady != null ? steady.json(windowStart - startNs)
                : Map.of("mode", "fixed", "seconds", options.window().warmupS()));
        json.put("windowStartMs", startEpochMs + (windowStart - startNs) / 1_000_000);
        json.put("windowEndMs", startEpochMs + (windowEnd - startNs) / 1_000_000);
        return counted(json, loopers, (windowEnd - windowStart) / 1e9, leftOver, deleted);
    }

    /** A progress line every --progress seconds until the inserting threads stop, the steady watch checked between. */
    private void watch(List<Thread> threads, SteadyWatch steady, long startNs) throws InterruptedException {
        long step = (long) (options.window().progressS() * 1e9);
        long next = startNs + step;
        long lastRows = 0;
        long lastNs = startNs;
        while (threads.stream().anyMatch(Thread::isAlive)) {
            long now = System.nanoTime();
            if (steady != null && windowStartNs == Long.MAX_VALUE) steady.check(now);
            if (now >= next) {
                long rows = rowsSoFar.get();
                out.printf("progress t=%.0fs phase=%s rows/s=%.0f rows=%d%n", (now - startNs) / 1e9,
                        now < windowStartNs ? "warmup" : now < windowEndNs ? "measure" : "drain",
                        (rows - lastRows) / ((now - lastNs) / 1e9), rows);
                out.flush();
                lastRows = rows;
                lastNs = now;
                next += step;
            }
            // the steady watch's next check, while the window is not open yet (the check above may have opened it)
            long wake = steady != null && windowStartNs == Long.MAX_VALUE ? Math.min(next, steady.nextCheckNs()) : next;
            TimeUnit.MILLISECONDS.sleep(Math.max(1, Math.min(100, (wake - now) / 1_000_000)));
        }
    }

    /** The window's rows, statements and statement latency, merged from the threads, added to JSON. */
    private Result counted(Map<String, Object> json, List<Looper> loopers, double seconds, long leftOver, long deleted) {
        Histogram latency = new Histogram(1, 10_000_000, 3);
        latency.setAutoResize(true);
        long statements = 0;
        for (Looper l : loopers) {
            latency.add(l.latency);
            statements += l.statements;
        }
        long rows = statements * options.batchRows();
        json.put("rows", rows);
        json.put("statements", statements);
        json.put("rowsPerSecond", round1(rows / seconds));
        json.put("statementsPerSecond", round1(statements / seconds));
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("count", latency.getTotalCount());
        lat.put("mean", Math.round(latency.getTotalCount() == 0 ? 0 : latency.getMean()) / 1000.0);
        lat.put("p50", latency.getValueAtPercentile(50) / 1000.0);
        lat.put("p90", latency.getValueAtPercentile(90) / 1000.0);
        lat.put("p99", latency.getValueAtPercentile(99) / 1000.0);
        lat.put("p999", latency.getValueAtPercentile(99.9) / 1000.0);
        lat.put("max", latency.getMaxValue() / 1000.0);
        json.put("latencyMs", lat);
        json.put("deadlockRetries", retries.get());
        json.put("rowsDeleted", deleted);
        return new Result(json, rows, statements, rows / seconds, leftOver, deleted);
    }

    public String summary(Result r) {
        Map<?, ?> lat = (Map<?, ?>) r.json().get("latencyMs");
        return String.format("insert-ceiling connections=%d batchRows=%d duration=%.1fs warmup=%.1fs: rows/s %.1f"
                        + " (rows %d, statements %d, statements/s %s, deadlock retries %s) statement latency ms: p50=%s p99=%s max=%s%n",
                options.connections(), options.batchRows(), options.window().durationS(), r.json().get("warmupS"), r.rowsPerSecond(),
                r.rows(), r.statements(), r.json().get("statementsPerSecond"), r.json().get("deadlockRetries"), lat.get("p50"), lat.get("p99"), lat.get("max"));
    }

    private void openWindow(long startNs) {
        windowEndNs = startNs + (long) (options.window().durationS() * 1e9);
        windowStartNs = startNs;
    }

    /**
     * {@code --warmup auto}, as {@code load}'s: consecutive windows of {@code --steady-window}
     * s; when a window's rows/s differs from the previous one's by less than
     * {@code --steady-tolerance} (relative to the larger) the measured window opens; after
     * {@code --warmup-max} s it opens anyway, not steady. A database's insert rate climbs for
     * many seconds after a start (the JDBC driver's and the client's JIT, InnoDB's buffer pool
     * and log), so a fixed 2 s warm-up measured a rate still rising.
     */
    private final class SteadyWatch {
        private final long startNs;
        private final long windowNs = (long) (options.window().steadyWindowS() * 1e9);
        private final long maxEndNs;
        private final List<Double> windows = new ArrayList<>();
        private long lastNs;
        private long lastRows;
        private Double previous;
        private boolean steady;

        SteadyWatch(long startNs) {
            this.startNs = startNs;
            this.lastNs = startNs;
            this.maxEndNs = startNs + (long) (options.window().warmupMaxS() * 1e9);
        }

        long nextCheckNs() {
            return Math.min(lastNs + windowNs, maxEndNs);
        }

        void check(long now) {
            if (now >= maxEndNs) {
                out.printf("warmup NOT steady after %.1fs (--warmup-max): measuring %.1fs anyway%n",
                        (now - startNs) / 1e9, options.window().durationS());
                openWindow(now);
                return;
            }
            if (now < lastNs + windowNs) return;
            long rows = rowsSoFar.get();
            double rate = (rows - lastRows) / ((now - lastNs) / 1e9);
            windows.add(round1(rate));
            double max = Math.max(rate, previous == null ? 0 : previous);
            Double change = previous == null || max <= 0 ? null : Math.abs(rate - previous) / max;
            steady = change != null && change < options.window().steadyTolerance();
            out.printf("warmup window=%d t=%.0fs rows/s=%.0f change=%s%s%n", windows.size(), (now - startNs) / 1e9, rate,
                    change == null ? "-" : String.format("%.1f%%", change * 100), steady ? " steady" : "");
            out.flush();
            previous = rate;
            lastRows = rows;
            lastNs = now;
            if (steady) {
                out.printf("warmup steady after %.1fs: measuring %.1fs%n", (now - startNs) / 1e9, options.window().durationS());
                openWindow(now);
            }
        }

        Map<String, Object> json(long warmupNs) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mode", "auto");
            m.put("seconds", round1(warmupNs / 1e9));
            m.put("steady", steady);
            m.put("windowsRowsPerSecond", windows);
            return m;
        }
    }

    /** Deletes this tool's rows (negative ids, its two names) in chunks; returns how many. */
    static long deleteOwnRows(Connection c) throws SQLException {
        c.setAutoCommit(true);
        long total = 0;
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM SALES WHERE PO_ID < 0 AND BUYER_NAME = ? AND SELLER_NAME = ? LIMIT " + DELETE_CHUNK)) {
            ps.setString(1, BUYER);
            ps.setString(2, SELLER);
            int n;
            do {
                n = ps.executeUpdate();
                total += n;
            } while (n > 0);
        }
        return total;
    }

    /** One connection inserting until the window ends; counts and times the statements that start in the window. */
    private final class Looper implements Runnable {
        private final Connection connection;
        private final AtomicReference<SQLException> failure;
        final Histogram latency = new Histogram(1, 10_000_000, 3);
        long statements;

        Looper(Connection connection, AtomicReference<SQLException> failure) {
            this.connection = connection;
            this.failure = failure;
            latency.setAutoResize(true);
        }

        /**
         * Concurrent INSERT ... ON DUPLICATE KEY UPDATE on one unique index can deadlock in
         * InnoDB (next-key locks); the server rolls one statement back, and it is sent again,
         * as the variants' writers do. The retries are counted; the statement's latency
         * includes them.
         */
        private void executeRetryingDeadlocks(PreparedStatement ps) throws SQLException {
            for (int attempt = 1; ; attempt++) {
                try {
                    ps.executeUpdate();
                    return;
                } catch (SQLException e) {
                    if (!"40001".equals(e.getSQLState()) || attempt >= 100) throw e;
                    retries.incrementAndGet();
                }
            }
        }

        @Override
        public void run() {
            int k = options.batchRows();
            try (PreparedStatement ps = connection.prepareStatement(statement(k))) {
                while (failure.get() == null) {
                    long start = System.nanoTime();
                    long windowStart = windowStartNs;
                    if (start >= windowEndNs) return;
                    long firstId = nextId.getAndAdd(k);
                    long created = System.currentTimeMillis();
                    for (int i = 0; i < k; i++) {
                        int at = i * 8;
                        long id = firstId + i;
                        ps.setString(at + 1, BUYER);
                        ps.setString(at + 2, SELLER);
                        ps.setString(at + 3, Long.toString(Math.floorMod(id, 100)));
                        ps.setBigDecimal(at + 4, PRICE);
                        ps.setLong(at + 5, 1 + Math.floorMod(id, 10));
                        ps.setLong(at + 6, id);
                        ps.setLong(at + 7, id);
                        ps.setLong(at + 8, created);
                    }
                    executeRetryingDeadlocks(ps);
                    long done = System.nanoTime();
                    rowsSoFar.addAndGet(k);
                    if (start >= windowStart && windowStart != Long.MAX_VALUE) {
                        statements++;
                        latency.recordValue(Math.max(0, (done - start) / 1000));
                    }
                }
            } catch (SQLException e) {
                failure.compareAndSet(null, e);
            }
        }
    }

    static double round1(double d) {
        return Math.round(d * 10) / 10.0;
    }
}
