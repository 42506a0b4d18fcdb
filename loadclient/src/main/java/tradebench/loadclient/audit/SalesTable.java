package tradebench.loadclient.audit;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the rows the audit needs from SALES (or the table --sales-table names). */
public final class SalesTable implements AutoCloseable {

    public record Row(long id, String buyer, String seller, String productId, BigDecimal price, int quantity,
               long poId, long soId, long created) {
        @Override
        public String toString() {
            return "SALES row ID=" + id + " (buyer=" + buyer + " seller=" + seller + " product=" + productId
                    + " price=" + price + " quantity=" + quantity + " PO=" + poId + " SO=" + soId + ")";
        }
    }

    private static final String COLUMNS = "ID, BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED";

    private final Connection connection;
    private final String table;

    public SalesTable(String jdbcUrl, String table) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl);
        this.connection.setAutoCommit(true);
        this.table = table;
    }

    /** Rows of an order, either side. */
    public List<Row> ofOrder(long orderId) throws SQLException {
        return query("SELECT " + COLUMNS + " FROM " + table + " WHERE PO_ID = ? UNION ALL SELECT " + COLUMNS + " FROM "
                + table + " WHERE SO_ID = ? AND PO_ID <> ? ORDER BY ID", orderId, orderId, orderId);
    }

    /**
     * Rows that may concern the run: inserted since {@code sinceMs}, or naming an id in
     * [minId, maxId] on either side (in case the service's clock differs from ours).
     * Each row once, by ID.
     */
    public List<Row> since(long sinceMs, long minId, long maxId) throws SQLException {
        Map<Long, Row> rows = new LinkedHashMap<>();
        add(rows, query("SELECT " + COLUMNS + " FROM " + table + " WHERE CREATED >= ?", sinceMs));
        add(rows, query("SELECT " + COLUMNS + " FROM " + table + " WHERE PO_ID BETWEEN ? AND ?", minId, maxId));
        add(rows, query("SELECT " + COLUMNS + " FROM " + table + " WHERE SO_ID BETWEEN ? AND ?", minId, maxId));
        List<Row> out = new ArrayList<>(rows.values());
        out.sort((a, b) -> Long.compare(a.id(), b.id()));
        return out;
    }

    /** How many rows name one of these ids: the "still trading?" probe of the quiet wait. */
    public long countForRange(long minId, long maxId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT (SELECT COUNT(*) FROM " + table
                + " WHERE PO_ID BETWEEN ? AND ?) + (SELECT COUNT(*) FROM " + table + " WHERE SO_ID BETWEEN ? AND ?)")) {
            ps.setLong(1, minId);
            ps.setLong(2, maxId);
            ps.setLong(3, minId);
            ps.setLong(4, maxId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Every row of the table, by ID (the reliability suite's database holds only its own run). */
    public List<Row> all() throws SQLException {
        return query("SELECT " + COLUMNS + " FROM " + table + " ORDER BY ID");
    }

    /** How many rows were inserted (CREATED, ms) in [fromMs, toMs). */
    public long countCreated(long fromMs, long toMs) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE CREATED >= ? AND CREATED < ?")) {
            ps.setLong(1, fromMs);
            ps.setLong(2, toMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** How many rows the table holds. */
    public long count() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM " + table);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void add(Map<Long, Row> rows, Collection<Row> more) {
        for (Row r : more) rows.putIfAbsent(r.id(), r);
    }

    private List<Row> query(String sql, long... params) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) ps.setLong(i + 1, params[i]);
            List<Row> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getBigDecimal(5), rs.getInt(6), rs.getLong(7), rs.getLong(8), rs.getLong(9)));
                }
            }
            return rows;
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // best effort
        }
    }
}
