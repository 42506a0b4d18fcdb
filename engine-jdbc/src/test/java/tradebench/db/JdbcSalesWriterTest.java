package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesWindow;
import tradebench.model.Sale;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;

/** The JDBC writer against the real private database: stores exactly, retries, never doubles. */
class JdbcSalesWriterTest {
    private TestDatabase db;

    @BeforeEach
    void empty() throws Exception {
        db = TestDatabase.forModule("engine-model");
        db.deleteAllSales();
    }

    private static List<Sale> sales(long firstPo, int n) {
        List<Sale> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Sale("b" + i, "s" + i, i % 100, 1000 + i, 1 + i % 10, firstPo + i, 9_000_000 + i));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storesEverySaleExactlyAsTraded(PersistMode mode) throws Exception {
        Config c = db.config();
        try (Database database = new Database(c)) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            AtomicBoolean stored = new AtomicBoolean();
            List<Sale> sales = sales(1, 2500); // batch: three chunks
            database.writer(mode, stats).store(sales, () -> stored.set(true));
            assertTrue(stored.get());
            assertEquals(2500, db.count(""));
            try (Connection conn = db.connect(); Statement s = conn.createStatement();
                 ResultSet rs = s.executeQuery("SELECT BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, SO_ID, CREATED FROM SALES WHERE PO_ID = 1234")) {
                assertTrue(rs.next());
                assertEquals("b1233", rs.getString(1));
                assertEquals("s1233", rs.getString(2));
                assertEquals("33", rs.getString(3));
                assertEquals(0, new java.math.BigDecimal("22.33").compareTo(rs.getBigDecimal(4)));
                assertEquals(4, rs.getLong(5));
                assertEquals(9_001_233, rs.getLong(6));
                assertTrue(Math.abs(System.currentTimeMillis() - rs.getLong(7)) < 60_000);
                assertFalse(rs.next());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storingTheSameSalesAgainStoresNothingTwice(PersistMode mode) throws Exception {
        try (Database database = new Database(db.config())) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            List<Sale> sales = sales(1, 300);
            database.writer(mode, stats).store(sales, () -> { });
            database.writer(mode, stats).store(sales.subList(100, 300), () -> { }); // a retry after a lost answer
            assertEquals(300, db.count(""));
            assertEquals(0, stats.persistenceFailures());
        }
    }

    /** The database goes away mid-cycle: the writer waits and retries, then every sale is stored once. */
    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void retriesThroughAnOutageWithoutLosingOrDoublingASale(PersistMode mode) throws Exception {
        Config direct = db.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort());
             Database database = new Database(db.config("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()), "DB_POOL", "2"))) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            JdbcSalesWriter writer = database.writer(mode, stats);
            writer.store(sales(1, 10), () -> { }); // the pool has live connections now
            proxy.cut();
            CountDownLatch stored = new CountDownLatch(1);
            Thread t = Thread.ofPlatform().start(() -> writer.store(sales(1, 1500), stored::countDown));
            Thread.sleep(1500);
            assertEquals(1, stored.getCount(), "nothing can be stored while the database is away");
            proxy.restore();
            assertTrue(stored.await(30, TimeUnit.SECONDS), "stored once the database is back");
            t.join();
            assertTrue(stats.persistenceFailures() > 0, "the outage was seen");
            assertEquals(1500, db.count(""));
            assertEquals(1500, db.count("PO_ID BETWEEN 1 AND 1500"));
        }
    }
}
