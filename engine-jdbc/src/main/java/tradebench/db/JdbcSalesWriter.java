package tradebench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesTable;
import tradebench.model.Prices;
import tradebench.model.Sale;

/**
 * The blocking sales writer of one engine (contract section 4), with the SQL of
 * {@link SalesTable}.
 * <ul>
 * <li>{@code per-sale}: one INSERT per sale, one after the other on one connection
 *     (the original experiment's way);</li>
 * <li>{@code batch}: one multi-row INSERT per cycle (in chunks of {@value SalesTable#CHUNK} rows),
 *     sent as text.</li>
 * </ul>
 * A failed insert is retried (the back-off of {@link SalesPersister}) until it
 * is stored: the engine waits, its inbox fills, and new orders get 503; no sale
 * is ever dropped.
 */
public final class JdbcSalesWriter implements SalesPersister {

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
        long backoffMs = FIRST_BACKOFF_MS;
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
                backoffMs = SalesPersister.nextBackoff(backoffMs);
            }
            done = progress[0];
        }
        if (interrupted) Thread.currentThread().interrupt();
        stored.run();
    }

    private static void insertEach(Connection c, List<Sale> sales, int[] progress) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SalesTable.INSERT_ONE)) {
            for (int i = progress[0]; i < sales.size(); i++) {
                bind(ps, sales.get(i), System.currentTimeMillis());
                ps.executeUpdate();
                progress[0] = i + 1;
            }
        }
    }

    /** Batch: the multi-row INSERT as text ({@link SalesTable#insertText}), on a plain statement. */
    private static void insertChunks(Connection c, List<Sale> sales, int[] progress) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.setEscapeProcessing(false); // no JDBC escapes in it: the driver need not scan the text for them
            while (progress[0] < sales.size()) {
                int from = progress[0], n = Math.min(SalesTable.CHUNK, sales.size() - from);
                st.executeUpdate(SalesTable.insertText(sales.subList(from, from + n), System.currentTimeMillis()));
                progress[0] = from + n;
            }
        }
    }

    static void bind(PreparedStatement ps, Sale s, long created) throws SQLException {
        ps.setString(1, s.buyer());
        ps.setString(2, s.seller());
        ps.setString(3, Integer.toString(s.productId()));
        ps.setBigDecimal(4, Prices.toDecimal(s.priceCents()));
        ps.setLong(5, s.quantity());
        ps.setLong(6, s.poId());
        ps.setLong(7, s.soId());
        ps.setLong(8, created);
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
