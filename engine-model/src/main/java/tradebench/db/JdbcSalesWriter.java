package tradebench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.model.Prices;
import tradebench.model.Sale;

/**
 * The blocking sales writer of one engine (contract section 4).
 * <ul>
 * <li>{@code per-sale}: one INSERT per sale, one after the other on one connection
 *     (the original experiment's way);</li>
 * <li>{@code batch}: one multi-row INSERT per cycle (in chunks of {@value #CHUNK} rows).</li>
 * </ul>
 * Every insert is {@code ... ON DUPLICATE KEY UPDATE ID = ID} over the unique
 * (PO_ID, SO_ID): when a connection dies after the server committed but before
 * we heard so, the retry stores nothing twice. A failed insert is retried (with
 * a backoff up to 1 s) until it is stored: the engine waits, its inbox fills,
 * and new orders get 503 — no sale is ever dropped.
 */
public final class JdbcSalesWriter implements SalesPersister {
    static final int CHUNK = 1000;
    static final String COLUMNS = "INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES ";
    static final String ROW = "(?,?,?,?,?,?,?,?)";
    static final String IDEMPOTENT = " ON DUPLICATE KEY UPDATE ID = ID";
    private static final String ONE = COLUMNS + ROW + IDEMPOTENT;

    private final Database db;
    private final PersistMode mode;
    private final EngineStats stats;
    private long lastComplaintMs;

    JdbcSalesWriter(Database db, PersistMode mode, EngineStats stats) {
        this.db = db;
        this.mode = mode;
        this.stats = stats;
    }

    @Override
    public void store(List<Sale> sales, Runnable stored) {
        int done = 0; // sales [0, done) are stored
        long backoffMs = 50;
        boolean interrupted = false;
        while (done < sales.size()) {
            int[] progress = {done};
            try (Connection c = db.connection()) {
                if (mode == PersistMode.PER_SALE) insertEach(c, sales, progress);
                else insertChunks(c, sales, progress);
            } catch (SQLException | RuntimeException e) {
                stats.persistenceFailure();
                complain(e);
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    interrupted = true; // shutting down: still store every sale first
                }
                backoffMs = Math.min(backoffMs * 2, 1000);
            }
            done = progress[0];
        }
        if (interrupted) Thread.currentThread().interrupt();
        stored.run();
    }

    private static void insertEach(Connection c, List<Sale> sales, int[] progress) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ONE)) {
            for (int i = progress[0]; i < sales.size(); i++) {
                bind(ps, 0, sales.get(i), System.currentTimeMillis());
                ps.executeUpdate();
                progress[0] = i + 1;
            }
        }
    }

    private static void insertChunks(Connection c, List<Sale> sales, int[] progress) throws SQLException {
        while (progress[0] < sales.size()) {
            int from = progress[0], n = Math.min(CHUNK, sales.size() - from);
            try (PreparedStatement ps = c.prepareStatement(multiRow(n))) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < n; i++) bind(ps, i * 8, sales.get(from + i), now);
                ps.executeUpdate();
            }
            progress[0] = from + n;
        }
    }

    static String multiRow(int rows) {
        StringBuilder sb = new StringBuilder(COLUMNS.length() + rows * (ROW.length() + 1) + IDEMPOTENT.length());
        sb.append(COLUMNS);
        for (int i = 0; i < rows; i++) {
            if (i > 0) sb.append(',');
            sb.append(ROW);
        }
        return sb.append(IDEMPOTENT).toString();
    }

    private static void bind(PreparedStatement ps, int at, Sale s, long created) throws SQLException {
        ps.setString(at + 1, s.buyer());
        ps.setString(at + 2, s.seller());
        ps.setString(at + 3, Integer.toString(s.productId()));
        ps.setBigDecimal(at + 4, Prices.toDecimal(s.priceCents()));
        ps.setLong(at + 5, s.quantity());
        ps.setLong(at + 6, s.poId());
        ps.setLong(at + 7, s.soId());
        ps.setLong(at + 8, created);
    }

    /** One line per failure burst, not one per retry. */
    private void complain(Exception e) {
        long now = System.currentTimeMillis();
        if (now - lastComplaintMs > 5000) {
            lastComplaintMs = now;
            System.err.println("engine " + stats.engine + ": storing sales failed, retrying: " + e.getMessage());
        }
    }
}
