package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.load.LoadResult;
import tradebench.loadclient.load.LoadRun;

/** {@code load --db-url}: SALES rows of the measured window and the server's insert counters. */
class LoadDbIT {

    private static long countOwn(Connection db, long from, long to) throws Exception {
        try (PreparedStatement ps = db.prepareStatement(
                "SELECT COUNT(*) FROM SALES WHERE CREATED >= ? AND CREATED < ? AND BUYER_NAME = 'loaddb-b'")) {
            ps.setLong(1, from);
            ps.setLong(2, to);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** One SALES row of this test's own (buyer 'loaddb-b'), CREATED as given, as a variant stores a sale. */
    private static void storeOwnSale(Connection db, long created) throws Exception {
        synchronized (db) {
            try (PreparedStatement ps = db.prepareStatement("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID,"
                    + " PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES ('loaddb-b','loaddb-s','1',1.00,1,?,?,?)")) {
                long id = System.nanoTime();
                ps.setLong(1, id);
                ps.setLong(2, id);
                ps.setLong(3, created);
                ps.executeUpdate();
            }
        }
    }

    @Test
    void countsTheSalesStoredInTheMeasuredWindow() throws Exception {
        String url = TestDb.jdbcUrl();
        // A server that stores one SALES row per order it accepts (CREATED = now, as the variants do).
        try (Connection db = DriverManager.getConnection(url);
             LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(ex -> {
                 try {
                     storeOwnSale(db, System.currentTimeMillis());
                 } catch (Exception e) {
                     return 500;
                 }
                 return 202;
             })) {
            LoadResult r = new LoadRun(LoadOptions.parse(new String[] {"--url", server.url(), "--concurrency", "2",
                    "--wait", "5", "--duration", "2", "--warmup", "0.5", "--db-url", url}),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
            Map<String, Object> json = r.toJson();
            Map<?, ?> dbFigures = (Map<?, ?>) json.get("db");
            long from = (Long) dbFigures.get("windowStartMs");
            long to = (Long) dbFigures.get("windowEndMs");
            assertEquals(2000, to - from, 5);
            long expected = countOwn(db, from, to);
            long sales = (Long) dbFigures.get("sales");
            assertTrue(expected > 50, "the server stored rows: " + expected);
            assertEquals(expected, sales, "every row of the window, and no other test writes this database now");
            assertEquals(sales * 30.0, (Double) dbFigures.get("salesPerMinute"), 0.5, "2 s window: per minute = 30 x");
            assertEquals(List.of(sales), dbFigures.get("salesByMinute"));
            Map<?, ?> counters = (Map<?, ?>) dbFigures.get("counters");
            // MySQL has Innodb_rows_inserted, MariaDB 10.6+ does not; Handler_write is in both.
            Long innodb = (Long) counters.get("innodbRowsInserted");
            long rowsWritten = innodb != null ? innodb : (Long) counters.get("handlerWrite");
            long comInsert = (Long) counters.get("comInsert");
            // Global counters: other databases on the server may add to them, never take away.
            assertTrue(rowsWritten >= sales * 0.8, "the storage engine saw the inserts: " + rowsWritten + " vs " + sales);
            assertTrue(comInsert >= sales * 0.8, "Com_insert saw them: " + comInsert + " vs " + sales);
            assertTrue((Long) counters.get("salesIdDelta") >= sales * 0.8);
            // The halves: SALES rows of [start, mid) and [mid, end), per minute of half window.
            Map<String, Object> halves = r.halves();
            long mid = (Long) halves.get("midMs");
            assertEquals(from + (to - from) / 2, mid);
            long firstRows = countOwn(db, from, mid);
            long secondRows = countOwn(db, mid, to);
            assertEquals(sales, firstRows + secondRows);
            assertTrue(firstRows > 0 && secondRows > 0, firstRows + " / " + secondRows);
            assertEquals(firstRows * 60_000.0 / (mid - from), (Double) halves.get("firstSalesPerMinute"), 0.05);
            assertEquals(secondRows * 60_000.0 / (to - mid), (Double) halves.get("secondSalesPerMinute"), 0.05);
        }
    }

    @Test
    void countsASaleOfTheWindowStoredAfterItsEnd() throws Exception {
        String url = TestDb.jdbcUrl();
        // A server that answers at once and stores each sale 200 ms later, CREATED when it was accepted (an engine
        // that answers before it stores): the window's last sales reach the table after the window has ended.
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        try (Connection db = DriverManager.getConnection(url);
             LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(ex -> {
                 long created = System.currentTimeMillis();
                 later.schedule(() -> {
                     try {
                         storeOwnSale(db, created);
                     } catch (Exception e) {
                         throw new IllegalStateException(e);
                     }
                 }, 200, TimeUnit.MILLISECONDS);
                 return 202;
             })) {
            LoadResult r = new LoadRun(LoadOptions.parse(new String[] {"--url", server.url(), "--concurrency", "2",
                    "--wait", "5", "--duration", "1", "--warmup", "0.5", "--db-url", url}),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
            Map<?, ?> dbFigures = (Map<?, ?>) r.toJson().get("db");
            long from = (Long) dbFigures.get("windowStartMs");
            long to = (Long) dbFigures.get("windowEndMs");
            Thread.sleep(1000);      // every scheduled sale stored
            long expected = countOwn(db, from, to);
            assertTrue(expected > 50, "the server stored rows: " + expected);
            assertEquals(expected, (Long) dbFigures.get("sales"), "the sales of the window's last 200 ms counted too");
        } finally {
            later.shutdownNow();
        }
    }
}
