package tradebench.loadclient.load;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The database's side of a run: SALES rows stored in the measured window (the
 * figure of the original experiment) and the server's own insert counters, so
 * a result cannot claim sales that never reached the table.
 */
final class DbFigures implements AutoCloseable {

    /**
     * Server counters read at both ends of the window (global: other clients of the
     * server count too). Innodb_rows_inserted is MySQL's (MariaDB 10.6+ dropped it:
     * null there); Handler_write (rows written by the storage engines) exists in both.
     */
    static final List<String> COUNTERS = List.of("Innodb_rows_inserted", "Handler_write", "Com_insert", "Com_insert_select");

    record Snapshot(Map<String, Long> counters, long maxSalesId) {}

    private final Connection connection;

    DbFigures(String jdbcUrl) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl);
        connection.setAutoCommit(true);
    }

    Snapshot snapshot() throws SQLException {
        Map<String, Long> counters = new LinkedHashMap<>();
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN ('"
                     + String.join("','", COUNTERS) + "')")) {
            while (rs.next()) counters.put(rs.getString(1), rs.getLong(2));
        }
        long maxId;
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(ID), 0) FROM SALES")) {
            rs.next();
            maxId = rs.getLong(1);
        }
        return new Snapshot(counters, maxId);
    }

    /** SALES rows with CREATED in [fromMs, toMs): uses the index on CREATED. */
    Map<String, Object> salesInWindow(long fromMs, long toMs) throws SQLException {
        Map<String, Object> out = new LinkedHashMap<>();
        // One query for the total and the per-minute split, so they agree even while rows still arrive.
        int minutes = Math.max(1, (int) Math.ceil((toMs - fromMs) / 60_000.0));
        List<Long> byMinute = new ArrayList<>();
        for (int i = 0; i < minutes; i++) byMinute.add(0L);
        long sales = 0;
        long quantity = 0;
        try (PreparedStatement ps = connection.prepareStatement("SELECT FLOOR((CREATED - ?) / 60000) AS M, COUNT(*),"
                + " COALESCE(SUM(QUANTITY), 0) FROM SALES WHERE CREATED >= ? AND CREATED < ? GROUP BY M")) {
            ps.setLong(1, fromMs);
            ps.setLong(2, fromMs);
            ps.setLong(3, toMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int m = rs.getInt(1);
                    if (m >= 0 && m < byMinute.size()) byMinute.set(m, byMinute.get(m) + rs.getLong(2));
                    sales += rs.getLong(2);
                    quantity += rs.getLong(3);
                }
            }
        }
        double minutesInWindow = (toMs - fromMs) / 60_000.0;
        out.put("windowStartMs", fromMs);
        out.put("windowEndMs", toMs);
        out.put("sales", sales);
        out.put("salesQuantity", quantity);
        out.put("salesPerMinute", minutesInWindow > 0 ? round1(sales / minutesInWindow) : 0.0);
        out.put("salesByMinute", byMinute);
        return out;
    }

    /** SALES rows with CREATED in [fromMs, toMs) (the halves of the window). */
    long salesBetween(long fromMs, long toMs) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM SALES WHERE CREATED >= ? AND CREATED < ?")) {
            ps.setLong(1, fromMs);
            ps.setLong(2, toMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static Map<String, Object> deltas(Snapshot before, Snapshot after) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String name : COUNTERS) {
            Long a = before.counters().get(name);
            Long b = after.counters().get(name);
            out.put(jsonName(name), a == null || b == null ? null : b - a);
        }
        out.put("salesIdDelta", after.maxSalesId() - before.maxSalesId());
        return out;
    }

    /** "Innodb_rows_inserted" -> "innodbRowsInserted". */
    static String jsonName(String counter) {
        StringBuilder sb = new StringBuilder();
        boolean up = false;
        for (char c : counter.toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                sb.append(sb.isEmpty() ? Character.toLowerCase(c) : up ? Character.toUpperCase(c) : Character.toLowerCase(c));
                up = false;
            }
        }
        return sb.toString();
    }

    static double round1(double d) {
        return Math.round(d * 10) / 10.0;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // best effort at the end of a run
        }
    }
}
