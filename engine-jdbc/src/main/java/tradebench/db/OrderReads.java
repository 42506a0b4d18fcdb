package tradebench.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import tradebench.engine.Config;
import tradebench.engine.Fill;
import tradebench.engine.ReadPath;
import tradebench.engine.SalesTable;
import tradebench.model.Prices;

/**
 * The order view's read path (contract section 8): a HikariCP pool of its own, READ_POOL connections
 * to READ_DB_HOST:READ_DB_PORT opened on demand, and the one query a view makes, bounded by the view's
 * deadline: the wait for a connection, opening it and the query's answer together. The engines'
 * writers never use it, and it never falls back to theirs.
 */
public final class OrderReads implements AutoCloseable {
    /** Hikari's floor for its waits. */
    private static final int HIKARI_MIN_WAIT_MS = 250;
    /** Connector/J's network time-out is set on the calling thread, before the query is sent. */
    private static final Executor RIGHT_HERE = Runnable::run;

    private final ReadPath path;
    private final HikariDataSource pool;

    public OrderReads(Config config) {
        this(config, ReadPath.of(config));
    }

    public OrderReads(Config config, ReadPath path) {
        this.path = path;
        int waitMs = Math.max(HIKARI_MIN_WAIT_MS, path.timeoutMs());
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(path.jdbcUrl(config));
        hc.setUsername(config.dbUser());
        hc.setPassword(config.dbPassword());
        hc.setPoolName("tradebench-read");
        hc.setMaximumPoolSize(path.pool());
        hc.setMinimumIdle(Math.min(path.pool(), 2));
        hc.setConnectionTimeout(waitMs);
        hc.setValidationTimeout(Math.max(HIKARI_MIN_WAIT_MS, Math.min(path.timeoutMs(), 1_000)));
        hc.setInitializationFailTimeout(-1); // start while the read server is away: views answer 503 or 504
        hc.addDataSourceProperty("useServerPrepStmts", "true");
        hc.addDataSourceProperty("cachePrepStmts", "true");
        hc.addDataSourceProperty("useSSL", "false");
        hc.addDataSourceProperty("allowPublicKeyRetrieval", "true");
        // A server that takes the TCP connection and never answers holds a handshake no longer than a view waits.
        hc.addDataSourceProperty("connectTimeout", Integer.toString(waitMs));
        hc.addDataSourceProperty("socketTimeout", Integer.toString(waitMs));
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        pool = new HikariDataSource(hc);
    }

    public ReadPath path() {
        return path;
    }

    /** The deadline of a view starting now, in {@link System#nanoTime()}'s terms. */
    public long deadlineFromNow() {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(path.timeoutMs());
    }

    /**
     * The SALES rows of an order, by ID, read before {@code deadlineNanos} ({@link System#nanoTime()}).
     *
     * @throws ReadTimedOut the deadline passed first (waiting for a connection, opening it, or reading)
     * @throws SQLException the read server could not be reached or failed the query
     */
    public List<Fill> fills(long orderId, long deadlineNanos) throws SQLException, ReadTimedOut {
        Connection c = connection(deadlineNanos);
        try {
            List<Fill> out = query(c, orderId, remainingMs(deadlineNanos));
            c.close();
            return out;
        } catch (SQLException e) {
            // its answer may still be on its way: never hand the connection to the next view
            pool.evictConnection(c);
            closeEvicted(c);
            if (timedOut(e, deadlineNanos)) throw new ReadTimedOut(path.timedOut(), e);
            throw e;
        }
    }

    /** Connections the read pool holds open (in use or idle). */
    public int openConnections() {
        return pool.getHikariPoolMXBean().getTotalConnections();
    }

    public String describe() {
        return path.describe();
    }

    @Override
    public void close() {
        pool.close();
    }

    private Connection connection(long deadlineNanos) throws SQLException, ReadTimedOut {
        if (remainingMs(deadlineNanos) <= 0) throw new ReadTimedOut(path.timedOut(), null);
        Connection c;
        try {
            c = pool.getConnection();
        } catch (SQLException e) {
            if (refused(e)) throw e;
            throw new ReadTimedOut(path.timedOut(), e);
        }
        if (remainingMs(deadlineNanos) < leastLeftMs()) {
            c.close(); // idle and clean: the pool keeps it
            throw new ReadTimedOut(path.timedOut(), null);
        }
        return c;
    }

    /**
     * The least of its deadline a view must have left, once it holds a connection, to send its query: a tenth
     * of READ_TIMEOUT_MS, at least 10 ms. Without it, views that waited in the pool's queue nearly to their
     * deadline got a connection with milliseconds left, their reads timed out, and each time-out threw the
     * connection away: with no VIEW_LIMIT, java-virtual's views never came back after a slow phase (every
     * view 504 through 22 s of a healthy read path, the pool's connections opened and thrown away in turn).
     * Answered 504 at once, such a view leaves its connection clean for the next.
     */
    long leastLeftMs() {
        return Math.max(10, path.timeoutMs() / 10);
    }

    private static void closeEvicted(Connection c) {
        try {
            c.close();
        } catch (SQLException alreadyBroken) {
            // the pool closes an evicted connection whatever its state
        }
    }

    private static List<Fill> query(Connection c, long orderId, long timeoutMs) throws SQLException {
        c.setNetworkTimeout(RIGHT_HERE, (int) Math.max(1, timeoutMs));
        try (PreparedStatement ps = c.prepareStatement(SalesTable.FILLS)) {
            ps.setLong(1, orderId);
            ps.setLong(2, orderId);
            List<Fill> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Fill(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            Prices.toCents(rs.getBigDecimal(5)), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9)));
                }
            }
            return out;
        }
    }

    /**
     * Did the pool fail to give a connection because the server refused or dropped it (503), rather than
     * because none came in time (504)? The pool names the last failure to open one, if any: a connection
     * still being opened to a server that does not answer has none, or a time-out.
     */
    private static boolean refused(SQLException e) {
        Throwable cause = e.getCause();
        if (cause == null || Thread.currentThread().isInterrupted()) return false;
        return !(hasTimeout(cause) || cause instanceof InterruptedException);
    }

    private static boolean timedOut(SQLException e, long deadlineNanos) {
        return remainingMs(deadlineNanos) <= 0 || Thread.currentThread().isInterrupted() || hasTimeout(e);
    }

    private static boolean hasTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException || t instanceof SQLTimeoutException) return true;
        }
        return false;
    }

    private static long remainingMs(long deadlineNanos) {
        return TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    }
}
