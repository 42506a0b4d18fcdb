package tradebench.spray.db;

import com.github.jasync.sql.db.QueryResult;
import com.github.jasync.sql.db.mysql.MySQLConnection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesTable;
import tradebench.model.Prices;
import tradebench.model.Sale;

/**
 * The non-blocking sales writer of one engine (contract section 4), with the
 * SQL of {@link SalesTable}, as engine-jdbc's blocking writer:
 * <ul>
 * <li>{@code per-sale}: every INSERT of the cycle is fired at once onto the
 *     pool's connections (see {@link PerSale}); the callback runs when the
 *     last one is acknowledged;</li>
 * <li>{@code batch}: one multi-row INSERT (in chunks of {@value SalesTable#CHUNK}
 *     rows, fired together), sent as text ({@link SalesTable#insertText}).</li>
 * </ul>
 * A failed insert (the database away, the wait queue full) is retried with the
 * back-off of {@link SalesPersister}, on Akka's scheduler, until it is stored:
 * no thread waits, the engine simply does not start its next cycle.
 */
public final class AsyncSalesWriter implements SalesPersister {

    /**
     * Per-sale: a lane gives its connection back after holding it this long and takes one again.
     * jasync's pool destroys a connection borrowed for longer than its query timeout plus 30 s,
     * as if its query had hung: a long lane (a backlog after an outage, a slow database) would
     * lose its connection mid-cycle. Giving it back also lets other engines' cycles in.
     */
    static final long LANE_HOLD_MS = 5_000;

    private final AsyncDatabase db;
    private final PersistMode mode;
    private final EngineStats stats;
    /** Per-sale: how many connections (lanes) one cycle may take or wait for at once. */
    private final int window;
    private final long laneHoldMs;
    private volatile long lastComplaintMs;

    AsyncSalesWriter(AsyncDatabase db, PersistMode mode, EngineStats stats, int window, long laneHoldMs) {
        this.db = db;
        this.mode = mode;
        this.stats = stats;
        this.window = window;
        this.laneHoldMs = laneHoldMs;
    }

    /** Stores {@code sales}; {@code stored} runs (on Akka's dispatcher) once every one is in SALES. */
    @Override
    public void store(List<Sale> sales, Runnable stored) {
        if (sales.isEmpty()) {
            stored.run();
            return;
        }
        if (mode == PersistMode.PER_SALE) {
            List<Integer> all = new ArrayList<>(sales.size());
            for (int i = 0; i < sales.size(); i++) all.add(i);
            new PerSale(sales, stored).round(all, FIRST_BACKOFF_MS);
        } else {
            new Batch(sales, stored).start();
        }
    }

    /**
     * One INSERT per sale, all fired at once onto the pool: up to {@link #window} lanes (the
     * engine's share of the pool's bounded wait queue) each take a connection and run the
     * cycle's inserts on it back to back, until none is left. A connection is taken and given
     * back once per lane (and again every {@link #LANE_HOLD_MS}), not once per insert: every
     * round trip through the pool's own actor would be two more tasks queued behind the HTTP
     * work on the shared dispatcher. Each acknowledgement continues on Akka's dispatcher. The
     * failed inserts go again, together, after a back-off.
     */
    private final class PerSale {
        final List<Sale> sales;
        final Runnable stored;
        final ArrayDeque<Integer> todo = new ArrayDeque<>();
        final List<Integer> failed = new ArrayList<>();
        Throwable firstError;
        int lanes;
        long backoffMs;

        PerSale(List<Sale> sales, Runnable stored) {
            this.sales = sales;
            this.stored = stored;
        }

        void round(List<Integer> indexes, long backoff) {
            int n;
            synchronized (this) {
                todo.addAll(indexes);
                backoffMs = backoff;
                n = Math.min(indexes.size(), window);
                lanes = n;
            }
            for (int k = 0; k < n; k++) lane();
        }

        /** A lane takes a connection (again) and runs inserts on it. */
        private void lane() {
            db.take().whenComplete((conn, e) -> {
                if (e != null) laneOver(null, e);
                else next(conn, System.currentTimeMillis());
            });
        }

        /** The lane's next insert on its connection, or the end of the lane when none is left. */
        private void next(MySQLConnection conn, long takenAt) {
            Integer i;
            synchronized (this) {
                i = todo.poll();
            }
            if (i == null) {
                laneOver(conn, null);
                return;
            }
            if (System.currentTimeMillis() - takenAt > laneHoldMs) { // held long enough: back, and queue again
                synchronized (this) {
                    todo.addFirst(i);
                }
                db.giveBack(conn);
                lane();
                return;
            }
            insert(conn, sales.get(i), System.currentTimeMillis()).whenCompleteAsync((r, e) -> {
                if (e != null) {
                    synchronized (this) {
                        failed.add(i);
                    }
                }
                if (e == null) next(conn, takenAt);
                else laneOver(conn, e); // the connection may be broken: the pool checks it when it is back
            }, db.dispatcher());
        }

        private void laneOver(MySQLConnection conn, Throwable error) {
            if (conn != null) db.giveBack(conn);
            boolean roundOver;
            synchronized (this) {
                if (error != null && firstError == null) firstError = error;
                roundOver = --lanes == 0;
                if (roundOver) {
                    failed.addAll(todo); // every lane failed before these were tried
                    todo.clear();
                }
            }
            if (roundOver) roundDone();
        }

        private void roundDone() {
            List<Integer> again;
            Throwable error;
            long backoff;
            synchronized (this) {
                again = new ArrayList<>(failed);
                error = firstError;
                backoff = backoffMs;
                failed.clear();
                firstError = null;
            }
            if (again.isEmpty()) {
                stored.run();
                return;
            }
            failure(error);
            again.sort(null); // keep the cycle's order on the retry
            db.later(backoff, () -> round(again, SalesPersister.nextBackoff(backoff)));
        }
    }

    /**
     * Multi-row INSERTs of up to {@value SalesTable#CHUNK} rows: a cycle of one chunk (the usual case) is one
     * INSERT; a larger one fires all its chunks at once, on as many connections. A failed chunk
     * goes again alone after a back-off.
     */
    private final class Batch {
        final List<Sale> sales;
        final Runnable stored;
        final AtomicInteger chunksLeft;

        Batch(List<Sale> sales, Runnable stored) {
            this.sales = sales;
            this.stored = stored;
            this.chunksLeft = new AtomicInteger((sales.size() + SalesTable.CHUNK - 1) / SalesTable.CHUNK);
        }

        void start() {
            for (int from = 0; from < sales.size(); from += SalesTable.CHUNK) chunk(from, FIRST_BACKOFF_MS);
        }

        private void chunk(int from, long backoffMs) {
            int n = Math.min(SalesTable.CHUNK, sales.size() - from);
            db.query(SalesTable.insertText(sales.subList(from, from + n), System.currentTimeMillis())).whenComplete((r, e) -> {
                if (e != null) {
                    failure(e);
                    db.later(backoffMs, () -> chunk(from, SalesPersister.nextBackoff(backoffMs)));
                } else if (chunksLeft.decrementAndGet() == 0) {
                    stored.run();
                }
            });
        }
    }

    private static CompletableFuture<QueryResult> insert(MySQLConnection conn, Sale s, long created) {
        return conn.sendPreparedStatement(SalesTable.INSERT_ONE, Arrays.asList(s.buyer(), s.seller(), Integer.toString(s.productId()),
                Prices.toDecimal(s.priceCents()), s.quantity(), s.poId(), s.soId(), created), false);
    }

    /** Counted every time; said once per failure burst, not once per retry. */
    private void failure(Throwable e) {
        stats.persistenceFailure();
        long now = System.currentTimeMillis();
        if (now - lastComplaintMs > 5000) {
            lastComplaintMs = now;
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
            System.err.println("engine " + stats.engine + ": storing sales failed, retrying: " + cause);
        }
    }
}
