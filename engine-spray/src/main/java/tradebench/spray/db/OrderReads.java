package tradebench.spray.db;

import akka.actor.Cancellable;
import akka.actor.Scheduler;
import com.github.jasync.sql.db.Connection;
import com.github.jasync.sql.db.ConnectionPoolConfiguration;
import com.github.jasync.sql.db.QueryResult;
import com.github.jasync.sql.db.RowData;
import com.github.jasync.sql.db.mysql.MySQLConnection;
import com.github.jasync.sql.db.pool.ConnectionPool;
import com.github.jasync.sql.db.util.DaemonThreadsFactory;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import kotlinx.coroutines.ExecutorsKt;
import scala.concurrent.ExecutionContextExecutor;
import tradebench.engine.Config;
import tradebench.engine.Fill;
import tradebench.engine.ReadPath;
import tradebench.engine.SalesTable;
import tradebench.model.Prices;

/**
 * The order view's read path (contract section 8): a jasync pool of READ_POOL connections to
 * READ_DB_HOST:READ_DB_PORT that only views use, the count of views in it (VIEW_LIMIT), and each
 * view's deadline (READ_TIMEOUT_MS from its start, the wait for a connection included). Nothing
 * here blocks: the deadline is a timer of Akka's scheduler, the read a callback on Akka's
 * dispatcher, and the pool opens its connections on demand (a read server that is away does not
 * delay the start).
 *
 * <p>A read past its deadline closes the connection it was reading on: the late answer has no
 * view left to go to, and a connection with a query under way must not be lent to the next one.
 * The connection goes back to the pool only once it is closed, so the pool drops it.
 */
public final class OrderReads {
    /**
     * Views whose deadline passed while they waited for a connection stay in the pool's queue
     * until jasync's query time-out (READ_TIMEOUT_MS) clears them; VIEW_LIMIT bounds the others.
     */
    private static final int PENDING_TAKES = 1_000_000;
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

    private final ReadPath path;
    private final ConnectionPool<MySQLConnection> pool;
    private final Scheduler scheduler;
    private final ExecutionContextExecutor dispatcher;
    private final AtomicInteger inPath = new AtomicInteger();
    /** The read pool's sockets, on a thread of their own: a view's work never runs on the writers' I/O thread. */
    private final ReadConnections.Loops io;

    OrderReads(Config config, ReadPath path, ExecutionContextExecutor dispatcher, Scheduler scheduler) {
        this.path = path;
        this.io = new ReadConnections.Loops(1, new DaemonThreadsFactory("db-read-io"));
        this.scheduler = scheduler;
        this.dispatcher = dispatcher;
        ConnectionPoolConfiguration pc = new ConnectionPoolConfiguration(
                path.host(), path.port(), config.dbName(), config.dbUser(), config.dbPassword(),
                path.pool(),                                       // maxActiveConnections
                TimeUnit.MINUTES.toMillis(1),                      // maxIdleTime
                PENDING_TAKES,                                     // maxPendingQueries
                5_000,                                             // connectionValidationInterval
                path.timeoutMs(),                                  // connectionCreateTimeout: no view waits longer
                5_000,                                             // connectionTestTimeout
                (long) path.timeoutMs(),                           // queryTimeout: jasync closes a connection past it
                io,                                                // eventLoopGroup: the read pool's own
                dispatcher,                                        // executionContext: callbacks on Akka's dispatcher
                ExecutorsKt.from(dispatcher));                     // the pool's own coroutine actor, there too
        this.pool = new ConnectionPool<>(new ReadConnections(pc.getConnectionConfiguration()), pc);
    }

    public ReadPath path() {
        return path;
    }

    /** Views in the read path now (waiting for a read connection, or reading). */
    public int viewsInPath() {
        return inPath.get();
    }

    /** A view enters the read path, or null when VIEW_LIMIT views are in it: the caller refuses it at once. */
    public View enter() {
        int now = inPath.incrementAndGet();
        if (path.limited() && now > path.viewLimit()) {
            inPath.decrementAndGet();
            return null;
        }
        return new View(System.nanoTime());
    }

    /** The view's read did not come back within READ_TIMEOUT_MS of its start. */
    public static final class TimedOut extends Exception {
        private static final long serialVersionUID = 1L;

        TimedOut(int ms) {
            super("no answer from the read server within " + ms + " ms");
        }
    }

    /** Did this read fail by its deadline (rather than by a read server that refused or failed)? */
    public static boolean timedOut(Throwable e) {
        return cause(e) instanceof TimedOut;
    }

    private static Throwable cause(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) t = t.getCause();
        return t;
    }

    /**
     * One view's place in the read path, from {@link #enter} until {@link #leave} (called by
     * {@link #fills} when the read completes, fails or times out, before its answer; a caller that ends the view
     * before reading calls it itself). Leaving twice counts once.
     */
    public final class View {
        private final long startedNanos;
        private final AtomicBoolean left = new AtomicBoolean();

        private View(long startedNanos) {
            this.startedNanos = startedNanos;
        }

        public void leave() {
            if (left.compareAndSet(false, true)) inPath.decrementAndGet();
        }

        /** Milliseconds left before the view's deadline. */
        long remainingMs() {
            return path.timeoutMs() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
        }

        /**
         * The SALES rows of order {@code id}, by ID; fails with {@link TimedOut} at the view's
         * deadline, or with the driver's error. The view leaves the read path when it completes.
         */
        public CompletionStage<List<Fill>> fills(long id) {
            Read read = new Read(this);
            long remaining = remainingMs();
            if (remaining <= 0) {
                read.timeOut();
                return read.answer;
            }
            Cancellable deadline = scheduler.scheduleOnce(Duration.ofMillis(remaining), read::timeOut, dispatcher);
            read.answer.whenComplete((v, e) -> deadline.cancel());
            pool.take().whenComplete((c, e) -> {
                if (e != null) {
                    // jasync's own create or queue time-out: no connection yet, which the deadline answers (504)
                    if (!(cause(e) instanceof TimeoutException)) read.fail(e);
                } else if (!read.start(c)) pool.giveBack(c); // past the deadline already: nothing was sent on it
                else query(read, c, id);
            });
            return read.answer;
        }
    }

    private void query(Read read, MySQLConnection c, long id) {
        CompletableFuture<QueryResult> q;
        try {
            q = c.sendPreparedStatement(SalesTable.FILLS, List.of(id, id));
        } catch (RuntimeException e) { // a connection the server closed since the pool checked it
            read.fail(e);
            giveBack(read, c);
            return;
        }
        q.whenCompleteAsync((r, e) -> {
            // jasync's own query time-out (READ_TIMEOUT_MS from the query's start) may fire before the
            // view's deadline timer on a crowded machine: it is the same deadline, answered 504
            if (e != null && cause(e) instanceof TimeoutException) read.timeOut();
            else if (e != null) read.fail(e);
            else read.succeed(fills(r));
            giveBack(read, c);
        }, dispatcher);
    }

    /** The connection back to the pool; one closed by the deadline once it is closed, so the pool drops it. */
    private void giveBack(Read read, MySQLConnection c) {
        CompletableFuture<Connection> closing = read.closing();
        if (closing == null) pool.giveBack(c);
        else closing.whenComplete((x, e) -> pool.giveBack(c));
    }

    private static List<Fill> fills(QueryResult r) {
        List<Fill> out = new ArrayList<>(r.getRows().size());
        for (RowData row : r.getRows()) {
            out.add(new Fill(AsyncDatabase.number(row.get(0)), (String) row.get(1), (String) row.get(2), (String) row.get(3),
                    Prices.toCents((BigDecimal) row.get(4)), AsyncDatabase.number(row.get(5)), AsyncDatabase.number(row.get(6)),
                    AsyncDatabase.number(row.get(7)), AsyncDatabase.number(row.get(8))));
        }
        return out;
    }

    /**
     * One read, decided once: its answer, its failure or its deadline, whichever comes first.
     * The driver's callbacks and the deadline's timer may run on two threads of the dispatcher
     * at once; the lock is held for a few field writes only.
     *
     * <p>The view leaves the read path before the answer is completed: whoever sees the answer
     * (the route, and so the client) must find the view's slot free already. A callback on the
     * answer would not do: a CompletableFuture runs the last registered dependent first.
     */
    private final class Read {
        final CompletableFuture<List<Fill>> answer = new CompletableFuture<>();
        private final View view;
        private MySQLConnection reading;
        private CompletableFuture<Connection> closing;
        private boolean over;

        Read(View view) {
            this.view = view;
        }

        /** The connection is ours to read on, unless the deadline has passed. */
        synchronized boolean start(MySQLConnection c) {
            if (over) return false;
            reading = c;
            return true;
        }

        synchronized CompletableFuture<Connection> closing() {
            return closing;
        }

        void succeed(List<Fill> fills) {
            if (!decide()) return;
            view.leave();
            answer.complete(fills);
        }

        void fail(Throwable e) {
            if (!decide()) return;
            view.leave();
            answer.completeExceptionally(cause(e));
        }

        void timeOut() {
            MySQLConnection c;
            CompletableFuture<Connection> closed = new CompletableFuture<>();
            synchronized (this) {
                if (over) return;
                over = true;
                c = reading;
                if (c != null) closing = closed;
            }
            view.leave();
            answer.completeExceptionally(new TimedOut(path.timeoutMs()));
            if (c != null) close(c, closed);
        }

        private synchronized boolean decide() {
            if (over) return false;
            over = true;
            return true;
        }
    }

    /**
     * Closes a connection whose read is past its deadline. jasync fails its query at once and
     * completes the close once the socket is closed; a close that never completes (the channel
     * was already gone) is taken as done after a second, so the connection still leaves the pool.
     */
    private void close(MySQLConnection c, CompletableFuture<Connection> closed) {
        scheduler.scheduleOnce(CLOSE_WAIT, () -> closed.complete(c), dispatcher);
        try {
            c.disconnect().whenComplete((x, e) -> closed.complete(c));
        } catch (RuntimeException e) {
            closed.complete(c);
        }
    }

    /** Closes the read pool's connections, then its event loop; completes when both are done (never blocks). */
    CompletableFuture<?> closeAsync() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        pool.disconnect().whenComplete((p, e) ->
                io.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).addListener(f -> done.complete(null)));
        return done;
    }
}
