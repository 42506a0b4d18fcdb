package tradebench.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import tradebench.engine.Config;
import tradebench.engine.SalesTable;

/**
 * The blocking side of MySQL for the Java variants: a HikariCP pool over
 * Connector/J, the reads the service needs (largest stored id, health; the order view reads
 * through {@link OrderReads}, a pool of its own), and {@link JdbcSalesWriter}s for the engines.
 */
public final class Database implements AutoCloseable {
    /** How long a read waits for the server before the insert fails and is retried. */
    static final int SOCKET_TIMEOUT_MS = 30_000;

    private final HikariDataSource pool;
    private final String jdbcUrl;
    private final int poolSize;
    private final java.util.Properties probeProps = new java.util.Properties();
    private volatile long healthCheckedAt;
    private volatile boolean healthy = true;
    /** The stalled inserts of the concurrent writers' lanes, watched from the first such writer on. */
    private StallWatch stalls;

    public Database(Config config) {
        this(config.jdbcUrl(), config.dbUser(), config.dbPassword(), config.dbPool());
    }

    /**
     * FULL: every connection of the pool opened from the start and kept open. A design that keeps DB_POOL
     * inserts in flight needs them all at once; opened on demand, each would cost its first cycles a
     * handshake of several round trips behind a slow database.
     */
    public Database(Config config, boolean full) {
        this(config.jdbcUrl(), config.dbUser(), config.dbPassword(), config.dbPool(), full);
    }

    public Database(String jdbcUrl, String user, String password, int poolSize) {
        this(jdbcUrl, user, password, poolSize, false);
    }

    private Database(String jdbcUrl, String user, String password, int poolSize, boolean full) {
        this.jdbcUrl = jdbcUrl;
        this.poolSize = poolSize;
        probeProps.setProperty("user", user);
        probeProps.setProperty("password", password);
        probeProps.setProperty("connectTimeout", "1000");
        probeProps.setProperty("socketTimeout", "1000");
        probeProps.setProperty("useSSL", "false");
        probeProps.setProperty("allowPublicKeyRetrieval", "true");
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setUsername(user);
        hc.setPassword(password);
        hc.setMaximumPoolSize(poolSize);
        hc.setMinimumIdle(full ? poolSize : Math.min(poolSize, 4));
        hc.setPoolName("tradebench");
        hc.setConnectionTimeout(3_000);    // a waiting engine retries; a waiting request answers 503
        hc.setValidationTimeout(1_000);
        hc.setInitializationFailTimeout(-1); // start even while the database is away; health says so
        // Server-side prepared statements, cached per connection: the server parses the
        // per-sale INSERT once per pooled connection and then only executes it. Batch sends
        // its multi-row INSERT as text on a plain Statement, which these do not touch.
        hc.addDataSourceProperty("useServerPrepStmts", "true");
        hc.addDataSourceProperty("cachePrepStmts", "true");
        hc.addDataSourceProperty("prepStmtCacheSize", "64");
        hc.addDataSourceProperty("useSSL", "false");
        hc.addDataSourceProperty("allowPublicKeyRetrieval", "true"); // caching_sha2_password without TLS (MySQL 8.4)
        hc.addDataSourceProperty("connectTimeout", "3000");
        hc.addDataSourceProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_MS));
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        pool = new HikariDataSource(hc);
    }

    /** Connections the pool holds open (in use or idle). */
    public int openConnections() {
        return pool.getHikariPoolMXBean().getTotalConnections();
    }

    public Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /** The largest PO/SO id stored: the floor of the ids this process issues. Waits for the database up to {@code waitMs}. */
    public long largestStoredOrderId(long waitMs) {
        long deadline = System.currentTimeMillis() + waitMs;
        while (true) {
            try (Connection c = connection();
                 PreparedStatement ps = c.prepareStatement(SalesTable.LARGEST_ORDER_ID);
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Math.max(rs.getLong(1), rs.getLong(2));
            } catch (SQLException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("cannot read SALES from the database: " + e.getMessage(), e);
                }
                System.err.println("waiting for the database: " + e.getMessage());
                sleep(1000);
            }
        }
    }

    /** Can the database be reached? Asked at most twice a second, whatever the request rate; answers within about 1 s. */
    public boolean healthy() {
        long now = System.currentTimeMillis();
        if (now - healthCheckedAt < 500) return healthy;
        healthCheckedAt = now;
        // A connection of its own, not the pool's: the pool waits up to 3 s for a
        // connection while the server is away, a fresh connect is refused at once.
        try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl, probeProps)) {
            healthy = c.isValid(1);
        } catch (SQLException e) {
            healthy = false;
        }
        return healthy;
    }

    public JdbcSalesWriter writer(Config.PersistMode mode, tradebench.engine.EngineStats stats) {
        return new JdbcSalesWriter(this, mode, stats);
    }

    /**
     * A writer that keeps a cycle's inserts in flight together ({@link ConcurrentSalesWriter}), as many as
     * {@code inFlight} allows: one {@link InFlightLimit} shared by every engine's writer, at most the pool's size.
     */
    public ConcurrentSalesWriter concurrentWriter(Config.PersistMode mode, tradebench.engine.EngineStats stats,
                                                  InFlightLimit inFlight) {
        return new ConcurrentSalesWriter(this, mode, stats, inFlight, stalls());
    }

    /** The limit on inserts in flight shared by {@code writers} writers of {@link #concurrentWriter}: between {@code writers} and the pool's size. */
    public InFlightLimit inFlightLimit(int writers) {
        return new InFlightLimit(writers, poolSize);
    }

    /** As {@link #inFlightLimit(int)}, telling {@code tell} where it stands every few seconds. */
    public InFlightLimit inFlightLimit(int writers, java.io.PrintStream tell) {
        return new InFlightLimit(writers, poolSize, tell);
    }

    /** As {@link #inFlightLimit(int, java.io.PrintStream)}, learnt by Netflix's gradient limit ({@link InFlightLimit#gradient2}). */
    public InFlightLimit gradient2Limit(int writers, java.io.PrintStream tell) {
        return InFlightLimit.gradient2(writers, poolSize, tell);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (stalls != null) stalls.close();
        }
        pool.close();
    }

    private synchronized StallWatch stalls() {
        if (stalls == null) stalls = new StallWatch(java.time.Duration.ofMillis(SOCKET_TIMEOUT_MS));
        return stalls;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
