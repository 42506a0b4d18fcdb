package tradebench.spray.db;

import akka.actor.Scheduler;
import com.github.jasync.sql.db.ConnectionPoolConfiguration;
import com.github.jasync.sql.db.QueryResult;
import com.github.jasync.sql.db.RowData;
import com.github.jasync.sql.db.mysql.MySQLConnection;
import com.github.jasync.sql.db.mysql.MySQLConnectionBuilder;
import com.github.jasync.sql.db.pool.ConnectionPool;
import com.github.jasync.sql.db.util.DaemonThreadsFactory;
import io.netty.channel.nio.NioEventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kotlinx.coroutines.ExecutorsKt;
import scala.concurrent.ExecutionContextExecutor;
import tradebench.engine.Config;
import tradebench.engine.EngineStats;
import tradebench.engine.ReadPath;
import tradebench.engine.SalesTable;

/**
 * The non-blocking side of MySQL (jasync-mysql, the maintained successor of
 * the 2014 experiment's mysql-async): one connection pool whose callbacks run
 * on Akka's dispatcher, so HTTP, actors and the database share one execution
 * context. Nothing here ever blocks a caller except {@link #largestStoredOrderId},
 * which runs once, at start, before any request.
 *
 * <p>Two pools: the writers' (DB_POOL connections, the engines' inserts, /health and start-up's
 * read) and the order view's read pool ({@link OrderReads}, READ_POOL connections to
 * READ_DB_HOST:READ_DB_PORT, nothing else uses it). Threads of their own: one Netty event loop
 * for the writers' sockets (DB_IO_THREADS), one for the read pool's (OrderReads: nothing of the
 * read path runs on the writers' I/O thread), and jasync's single connection-test timer. None
 * grows with ENGINES, DB_POOL or READ_POOL.
 */
public final class AsyncDatabase implements AutoCloseable {
    /** The original experiment needed a wait queue of 1,000 queries in front of its pool. */
    static final int DEFAULT_QUEUE = 1000;

    private final ConnectionPool<MySQLConnection> pool;
    private final OrderReads reads;
    /** How many connections one engine's cycle may take or wait for: its share of the wait queue (a share is left for /health's). */
    private final int writeWindow;
    private final NioEventLoopGroup io;
    private final Scheduler scheduler;
    private final ExecutionContextExecutor dispatcher;
    private volatile long healthCheckedAt;
    private volatile boolean healthy = true;

    /**
     * @param dispatcher Akka's dispatcher: the driver completes every query on it
     * @param scheduler  Akka's scheduler: timeouts and retry back-offs
     */
    public AsyncDatabase(Config config, ExecutionContextExecutor dispatcher, Scheduler scheduler) {
        this.dispatcher = dispatcher;
        this.scheduler = scheduler;
        this.io = new NioEventLoopGroup(config.extraInt("DB_IO_THREADS", 1, 1, 64), new DaemonThreadsFactory("db-io"));
        int queue = config.extraInt("DB_QUEUE", DEFAULT_QUEUE, 1, 10_000_000);
        // an engine's cycle uses at most every connection, and never more than its share of the queue
        this.writeWindow = Math.max(1, Math.min(config.dbPool(), queue / (config.engines() + 1)));
        ConnectionPoolConfiguration pc = new ConnectionPoolConfiguration(
                config.dbHost(), config.dbPort(), config.dbName(), config.dbUser(), config.dbPassword(),
                config.dbPool(),                                   // maxActiveConnections
                TimeUnit.MINUTES.toMillis(1),                      // maxIdleTime
                queue,                                             // maxPendingQueries: the bounded wait queue
                5_000,                                             // connectionValidationInterval
                10_000,                                            // connectionCreateTimeout: generous on a busy machine
                5_000,                                             // connectionTestTimeout
                30_000L,                                           // queryTimeout: a hung query fails and is retried
                io,                                                // eventLoopGroup
                dispatcher,                                        // executionContext: callbacks on Akka's dispatcher
                ExecutorsKt.from(dispatcher));                     // the pool's own coroutine actor, there too
        this.pool = MySQLConnectionBuilder.createConnectionPool(pc);
        this.reads = new OrderReads(config, ReadPath.of(config), dispatcher, scheduler);
    }

    /** One query on some connection of the pool; completes on Akka's dispatcher. */
    public CompletableFuture<QueryResult> prepared(String sql, List<Object> values) {
        return pool.sendPreparedStatement(sql, values, false);
    }

    /** A connection of the pool for several queries in a row; give it back with {@link #giveBack}. */
    CompletableFuture<MySQLConnection> take() {
        return pool.take();
    }

    void giveBack(MySQLConnection c) {
        pool.giveBack(c);
    }

    ExecutionContextExecutor dispatcher() {
        return dispatcher;
    }

    public CompletableFuture<QueryResult> query(String sql) {
        return pool.sendQuery(sql);
    }

    /** The largest PO/SO id stored: the floor of the ids this process issues. Blocks: run once, at start. */
    public long largestStoredOrderId(long waitMs) {
        long deadline = System.currentTimeMillis() + waitMs;
        while (true) {
            try {
                QueryResult r = query(SalesTable.LARGEST_ORDER_ID)
                        .get(10, TimeUnit.SECONDS);
                RowData row = r.getRows().get(0);
                return Math.max(number(row.get(0)), number(row.get(1)));
            } catch (ExecutionException | TimeoutException e) {
                String why = e instanceof ExecutionException ? String.valueOf(e.getCause()) : "no answer in 10 s";
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("cannot read SALES from the database: " + why, e);
                }
                System.err.println("waiting for the database: " + why);
                sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the database", e);
            }
        }
    }

    /** The order view's read path: its own pool, its limit and its deadline (OrderReads). */
    public OrderReads reads() {
        return reads;
    }

    /** Can the database be reached? Asked at most twice a second, whatever the request rate. */
    public CompletionStage<Boolean> healthy() {
        long now = System.currentTimeMillis();
        if (now - healthCheckedAt < 500) return CompletableFuture.completedFuture(healthy);
        healthCheckedAt = now;
        return within(Duration.ofSeconds(1), query(SalesTable.PING)).handle((r, e) -> {
            healthy = e == null;
            return healthy;
        });
    }

    public AsyncSalesWriter writer(Config.PersistMode mode, EngineStats stats) {
        return writer(mode, stats, AsyncSalesWriter.LANE_HOLD_MS);
    }

    /** Tests: a writer whose per-sale lanes give their connection back after {@code laneHoldMs}. */
    AsyncSalesWriter writer(Config.PersistMode mode, EngineStats stats, long laneHoldMs) {
        return new AsyncSalesWriter(this, mode, stats, writeWindow, laneHoldMs);
    }

    /** After {@code ms}, on the dispatcher (retry back-off). */
    void later(long ms, Runnable task) {
        scheduler.scheduleOnce(Duration.ofMillis(ms), task, dispatcher);
    }

    /** {@code f}, or a TimeoutException after {@code d}: Akka's scheduler, not a thread of the JDK's. */
    private <T> CompletableFuture<T> within(Duration d, CompletableFuture<T> f) {
        if (f.isDone()) return f;
        CompletableFuture<T> out = new CompletableFuture<>();
        var timer = scheduler.scheduleOnce(d, () -> out.completeExceptionally(new TimeoutException("no answer from the database in " + d.toMillis() + " ms")), dispatcher);
        f.whenComplete((v, e) -> {
            timer.cancel();
            if (e != null) out.completeExceptionally(e);
            else out.complete(v);
        });
        return out;
    }

    /** MySQL BIGINT, INT and the like, whichever boxed type the driver chose. */
    static long number(Object o) {
        if (o instanceof Number n) return n.longValue();
        if (o == null) return 0;
        return Long.parseLong(o.toString());
    }

    /** Connections in use and queries waiting for one (tests, diagnostics). */
    public int waitingQueries() {
        return pool.getFuturesWaitingForConnectionCount();
    }

    /** Closes the pool's connections, then the event loop; completes when both are done (never blocks). */
    public CompletionStage<Void> closeAsync() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<?> both = CompletableFuture.allOf(pool.disconnect(), reads.closeAsync());
        within(Duration.ofSeconds(5), both).whenComplete((c, e) -> {
            if (e != null) System.err.println("closing the database pool: " + e);
            // a short quiet period: the last connections' close notifications still run on the loop
            io.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).addListener(f -> done.complete(null));
        });
        return done;
    }

    @Override
    public void close() {
        try {
            closeAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            System.err.println("closing the database pool: " + e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
