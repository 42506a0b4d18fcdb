package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code insert-ceiling} against the project's MariaDB: rows really stored in SALES, counted, and removed. */
class InsertCeilingIT {

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    private JsonNode ceiling(Path dir, String url, String... extra) throws Exception {
        Path file = dir.resolve("ceiling-" + System.nanoTime() + ".json");
        java.util.Map<String, String> flags = new java.util.LinkedHashMap<>(java.util.Map.of("--db-url", url,
                "--connections", "2", "--duration", "1", "--warmup", "0.3", "--progress", "0.5", "--json", file.toString()));
        for (int i = 0; i + 1 < extra.length; i += 2) flags.put(extra[i], extra[i + 1]);
        java.util.List<String> list = new java.util.ArrayList<>(java.util.List.of("insert-ceiling"));
        flags.forEach((k, v) -> {
            list.add(k);
            list.add(v);
        });
        String[] all = list.toArray(new String[0]);
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        int rc = Main.run(all, out, out);
        assertEquals(0, rc, output.toString(StandardCharsets.UTF_8));
        return new ObjectMapper().readTree(Files.readString(file));
    }

    private static long globalStatus(Connection c, String name) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE '" + name + "'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    private static long count(Connection c, String where) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM SALES WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void singleRowInsertsAreStoredCountedAndRemoved(@TempDir Path dir) throws Exception {
        String url = TestDb.jdbcUrl();
        try (Connection c = DriverManager.getConnection(url)) {
            long before = count(c, "1=1");
            long executedBefore = globalStatus(c, "Com_stmt_execute");
            JsonNode j = ceiling(dir, url, "--batch-rows", "1");
            // single rows go as server-side prepared statements, as the variants' per-sale writers send them:
            // the server executed at least one prepared statement per row (client-side ones it never sees)
            assertTrue(globalStatus(c, "Com_stmt_execute") - executedBefore >= j.path("rows").asLong(), j.toString());
            assertEquals(2, j.path("connections").asInt());
            assertEquals(1, j.path("batchRows").asInt());
            assertEquals(1.0, j.path("durationS").asDouble());
            long rows = j.path("rows").asLong();
            assertTrue(rows > 0, j.toString());
            assertEquals(rows, j.path("statements").asLong(), "one row per statement");
            assertEquals(rows / 1.0, j.path("rowsPerSecond").asDouble(), 0.1);
            assertEquals(rows, j.path("latencyMs").path("count").asLong(), "one latency per measured statement");
            // the window in epoch ms (the harness samples the database's CPU in it): 1 s long, and just now
            long start = j.path("windowStartMs").asLong(), end = j.path("windowEndMs").asLong();
            assertEquals(1000, end - start, 50, j.toString());
            assertTrue(Math.abs(System.currentTimeMillis() - end) < 60_000, j.toString());
            assertTrue(j.path("latencyMs").path("p50").asDouble() > 0);
            // Every counted row (and the warm-up's) was really in SALES: the cleanup found them all,
            // so none was swallowed by ON DUPLICATE KEY (the ids are unique).
            assertTrue(j.path("rowsDeleted").asLong() >= rows, j.toString());
            assertEquals(0, count(c, "PO_ID < 0"), "nothing left behind");
            assertEquals(before, count(c, "1=1"), "the other rows are untouched");
        }
    }

    @Test
    void autoWarmupMeasuresAfterSteadyWindowsOrItsBound(@TempDir Path dir) throws Exception {
        String url = TestDb.jdbcUrl();
        // windows of 0.5 s, a tolerance no two windows can miss (100 %): steady after the second window
        JsonNode steady = ceiling(dir, url, "--warmup", "auto", "--steady-window", "0.5", "--steady-tolerance", "1",
                "--warmup-max", "30");
        JsonNode w = steady.path("warmup");
        assertEquals("auto", w.path("mode").asText(), steady.toString());
        assertTrue(w.path("steady").asBoolean(), steady.toString());
        assertEquals(2, w.path("windowsRowsPerSecond").size(), "steady as soon as two windows are compared: " + steady);
        assertTrue(steady.path("warmupS").asDouble() >= 0.9 && steady.path("warmupS").asDouble() < 30, steady.toString());
        assertTrue(steady.path("rows").asLong() > 0, steady.toString());
        // a tolerance no two windows can meet (a change is never negative): the bound opens the window, not steady
        JsonNode bounded = ceiling(dir, url, "--warmup", "auto", "--steady-window", "0.4", "--steady-tolerance", "0.0000001",
                "--warmup-max", "1.5");
        assertEquals(false, bounded.path("warmup").path("steady").asBoolean(true), bounded.toString());
        assertTrue(bounded.path("warmupS").asDouble() >= 1.5, bounded.toString());
        assertEquals(bounded.path("rows").asDouble(), bounded.path("rowsPerSecond").asDouble(), 0.1, "1 s window: " + bounded);
        try (Connection c = DriverManager.getConnection(url)) {
            assertEquals(0, count(c, "PO_ID < 0"));
        }
    }

    @Test
    void multiRowInsertsStoreKRowsPerStatement(@TempDir Path dir) throws Exception {
        String url = TestDb.jdbcUrl();
        JsonNode j = ceiling(dir, url, "--batch-rows", "50");
        long statements = j.path("statements").asLong();
        assertTrue(statements > 0, j.toString());
        assertEquals(statements * 50, j.path("rows").asLong());
        assertEquals(j.path("rows").asDouble(), j.path("rowsPerSecond").asDouble(), 0.1, "1 s window");
        assertTrue(j.path("rowsDeleted").asLong() >= statements * 50, j.toString());
        try (Connection c = DriverManager.getConnection(url)) {
            assertEquals(0, count(c, "PO_ID < 0"));
        }
    }

    @Test
    void rowsLeftByAnInterruptedRunAreRemovedAndOthersKept(@TempDir Path dir) throws Exception {
        String url = TestDb.jdbcUrl();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            // A row of an interrupted run (negative ids, the tool's names) and a real-looking row
            // with the same names but positive ids: only the first is the tool's.
            st.executeUpdate("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED)"
                    + " VALUES ('ceiling-b','ceiling-s','1',1.00,1,-7,-7,0), ('ceiling-b','ceiling-s','1',1.00,1,777000007,777000007,0)");
            try {
                ceiling(dir, url, "--duration", "0.3", "--warmup", "0");
                assertTrue(output.toString(StandardCharsets.UTF_8).contains("deleted 1 rows left by an interrupted run"),
                        output.toString(StandardCharsets.UTF_8));
                assertEquals(0, count(c, "PO_ID = -7"));
                assertEquals(1, count(c, "PO_ID = 777000007"));
            } finally {
                st.executeUpdate("DELETE FROM SALES WHERE PO_ID IN (-7, 777000007)");
            }
        }
    }

    @Test
    void badFlagsAreRefused() {
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        assertEquals(2, Main.run(new String[] {"insert-ceiling", "--connections", "2"}, out, out), "--db-url is required");
        assertEquals(2, Main.run(new String[] {"insert-ceiling", "--db-url", "jdbc:mysql://x/y", "--batch-rows", "0"}, out, out));
        assertEquals(2, Main.run(new String[] {"insert-ceiling", "--db-url", "jdbc:mysql://x/y", "--batch-rows", "1001"}, out, out));
        assertEquals(2, Main.run(new String[] {"insert-ceiling", "--db-url", "jdbc:mysql://x/y", "--duration", "0"}, out, out));
    }
}
