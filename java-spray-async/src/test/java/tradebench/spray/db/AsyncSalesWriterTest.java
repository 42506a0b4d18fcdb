package tradebench.spray.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesWindow;
import tradebench.model.Sale;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;

/** The jasync writer against the real test database: stores exactly, retries, never doubles. */
class AsyncSalesWriterTest {
    private static TestDatabase tdb;
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        tdb = TestDatabase.forModule("java-spray-async");
        system = ActorSystem.create("writer-test");
    }

    @AfterAll
    static void stop() {
        if (system != null) system.terminate();
    }

    @BeforeEach
    void empty() throws Exception {
        tdb.deleteAllSales();
        base = System.currentTimeMillis() * 1000;
    }

    /**
     * Ids never seen by this table, like a service's: reusing the ids of rows another test
     * deleted would make InnoDB lock the delete-marked index entries, and concurrent inserts
     * deadlock on them (a retry stores them all the same, but the test counts failures).
     */
    private long base;

    private static List<Sale> sales(long firstPo, int n) {
        List<Sale> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Sale("b" + i, "s" + i, i % 100, 1000 + i, 1 + i % 10, firstPo + i, firstPo + 9_000_000 + i));
        }
        return out;
    }

    private AsyncDatabase database(Config c) {
        return new AsyncDatabase(c, system.dispatcher(), system.scheduler());
    }

    /** Stores and waits for the callback (the test's thread may wait; the service's never do). */
    private static void store(AsyncSalesWriter w, List<Sale> sales, long seconds) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        w.store(sales, () -> done.complete(null));
        done.get(seconds, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storesEverySaleExactlyAsTraded(PersistMode mode) throws Exception {
        try (AsyncDatabase db = database(tdb.config())) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            store(db.writer(mode, stats), sales(base + 1, 2500), 60); // batch: three chunks; per-sale: 2500 in flight at once
            assertEquals(2500, tdb.count(""));
            try (Connection conn = tdb.connect(); Statement s = conn.createStatement();
                 ResultSet rs = s.executeQuery("SELECT BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, SO_ID, CREATED FROM SALES WHERE PO_ID = " + (base + 1234))) {
                assertTrue(rs.next());
                assertEquals("b1233", rs.getString(1));
                assertEquals("s1233", rs.getString(2));
                assertEquals("33", rs.getString(3));
                assertEquals(0, new java.math.BigDecimal("22.33").compareTo(rs.getBigDecimal(4)));
                assertEquals(4, rs.getLong(5));
                assertEquals(base + 1 + 9_001_233, rs.getLong(6));
                assertTrue(Math.abs(System.currentTimeMillis() - rs.getLong(7)) < 60_000);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storingTheSameSalesAgainStoresNothingTwice(PersistMode mode) throws Exception {
        try (AsyncDatabase db = database(tdb.config())) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            List<Sale> sales = sales(base + 1, 300);
            store(db.writer(mode, stats), sales, 30);
            store(db.writer(mode, stats), sales.subList(100, 300), 30); // a retry after a lost answer
            assertEquals(300, tdb.count(""));
            assertEquals(0, stats.persistenceFailures());
        }
    }

    /** Cycles far larger than the pool's wait queue, from every engine at once: the queue never overflows. */
    @Test
    void cyclesLargerThanTheWaitQueueNeverOverflowIt() throws Exception {
        try (AsyncDatabase db = database(tdb.config("DB_QUEUE", "20", "DB_POOL", "2", "ENGINES", "4"))) {
            List<EngineStats> stats = new ArrayList<>();
            List<CompletableFuture<Void>> cycles = new ArrayList<>();
            for (int engine = 0; engine < 4; engine++) {
                EngineStats s = new EngineStats(engine, new SalesWindow());
                stats.add(s);
                CompletableFuture<Void> done = new CompletableFuture<>();
                db.writer(PersistMode.PER_SALE, s).store(sales(base + 1 + engine * 1000L, 400), () -> done.complete(null));
                cycles.add(done);
            }
            for (var c : cycles) c.get(60, TimeUnit.SECONDS);
            assertEquals(1600, tdb.count(""));
            for (EngineStats s : stats) assertEquals(0, s.persistenceFailures(), "no insert was refused by a full queue");
        }
    }

    /**
     * A long per-sale lane gives its connection back every LANE_HOLD_MS (jasync destroys a
     * connection borrowed for longer than its query timeout + 30 s): with one connection, another
     * engine's small cycle gets in while a big cycle is still being stored, and both are stored.
     */
    @Test
    void aLongLaneGivesItsConnectionBackSoOtherCyclesGetIn() throws Exception {
        try (AsyncDatabase db = database(tdb.config("DB_POOL", "1", "ENGINES", "2"))) {
            EngineStats bigStats = new EngineStats(0, new SalesWindow());
            CompletableFuture<Long> bigDone = new CompletableFuture<>();
            db.writer(PersistMode.PER_SALE, bigStats, 20).store(sales(base + 1, 3000), () -> bigDone.complete(System.nanoTime()));
            Thread.sleep(50); // the big cycle holds the only connection now
            store(db.writer(PersistMode.PER_SALE, new EngineStats(1, new SalesWindow())), sales(base + 100_001, 1), 60);
            long smallDone = System.nanoTime();
            assertNull(bigDone.getNow(null), "the small cycle was stored while the big one was still running");
            bigDone.get(120, TimeUnit.SECONDS);
            assertTrue(smallDone < bigDone.get());
            assertEquals(3001, tdb.count(""));
            assertEquals(0, bigStats.persistenceFailures());
        }
    }

    /** The database goes away mid-cycle: the writer retries, then every sale is stored once. */
    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void retriesThroughAnOutageWithoutLosingOrDoublingASale(PersistMode mode) throws Exception {
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort());
             AsyncDatabase db = database(tdb.config("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()), "DB_POOL", "2"))) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            AsyncSalesWriter writer = db.writer(mode, stats);
            store(writer, sales(base + 1, 10), 30); // the pool has live connections now
            proxy.cut();
            CompletableFuture<Void> stored = new CompletableFuture<>();
            writer.store(sales(base + 1, 1500), () -> stored.complete(null));
            Thread.sleep(1500);
            assertFalse(stored.isDone(), "nothing can be stored while the database is away");
            proxy.restore();
            stored.get(120, TimeUnit.SECONDS); // generous: the machine may be crowded
            assertTrue(stats.persistenceFailures() > 0, "the outage was seen");
            assertEquals(1500, tdb.count(""));
            assertEquals(1500, tdb.count("PO_ID BETWEEN " + (base + 1) + " AND " + (base + 1500)));
        }
    }

    @Test
    void batchTextQuotesNamesSafely() {
        String sql = AsyncSalesWriter.multiRow(List.of(new Sale("o'neil", "back\\slash", 7, 1050, 3, 1, 2)), 99);
        assertTrue(sql.contains("('o''neil','back\\\\slash','7',10.50,3,1,2,99)"), sql);
        assertNotEquals(-1, sql.indexOf(" ON DUPLICATE KEY UPDATE ID = ID"));
    }
}
