package tradebench.engine;

/**
 * The order view's read path (contract section 8, "The order view's read path"): the server
 * {@code GET /orders/{id}} reads from, its own pool, how many views may be in it at once, and
 * how long a view waits for its read. Shared by every Java variant, so the names and defaults
 * are the contract's in each.
 *
 * @param host      READ_DB_HOST, by default DB_HOST
 * @param port      READ_DB_PORT, by default DB_PORT
 * @param pool      READ_POOL: connections used by views only
 * @param timeoutMs READ_TIMEOUT_MS: a view's deadline, the wait for a connection included; past it, 504
 * @param viewLimit VIEW_LIMIT: views waiting for or holding a read connection at once; one more is 503 at
 *                  once; 0: no limit
 */
public record ReadPath(String host, int port, int pool, int timeoutMs, int viewLimit) {
    public static final int DEFAULT_POOL = 16;
    public static final int DEFAULT_TIMEOUT_MS = 2_000;
    public static final int DEFAULT_VIEW_LIMIT = 64;

    public static ReadPath of(Config config) {
        String host = config.extra("READ_DB_HOST", config.dbHost());
        int port = config.extraInt("READ_DB_PORT", config.dbPort(), 1, 65535);
        return new ReadPath(host, port,
                config.extraInt("READ_POOL", DEFAULT_POOL, 1, 10_000),
                config.extraInt("READ_TIMEOUT_MS", DEFAULT_TIMEOUT_MS, 1, 600_000),
                config.extraInt("VIEW_LIMIT", DEFAULT_VIEW_LIMIT, 0, 1_000_000));
    }

    public String jdbcUrl(Config config) {
        return "jdbc:mysql://" + host + ":" + port + "/" + config.dbName();
    }

    /** Is there a limit on the views in the read path? */
    public boolean limited() {
        return viewLimit > 0;
    }

    /** The 503's message when the limit is reached. */
    public String refusal() {
        return "too many order views waiting for the database (VIEW_LIMIT=" + viewLimit + ")";
    }

    /** The 504's message when a read did not come back in time. */
    public String timedOut() {
        return "the order's fills were not read within " + timeoutMs + " ms";
    }

    public String describe() {
        return "read=" + host + ":" + port + " readPool=" + pool + " readTimeoutMs=" + timeoutMs
                + " viewLimit=" + viewLimit;
    }
}
