package tradebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesWindow;
import tradebench.model.Sale;

/**
 * What every Java sales writer must do (contract section 4), against the real
 * test database: store exactly what was traded, store nothing twice, and
 * retry through an outage until every sale is stored once. engine-jdbc's
 * blocking writer and java-spray-async's jasync writer run it.
 */
public abstract class SalesWriterContract {
    /**
     * A database layer under test: what makes its writers, and what closes it after each test
     * (a {@code Runnable}: closing a pool throws nothing a test could act on).
     */
    public record Writers(BiFunction<PersistMode, EngineStats, SalesPersister> writers, Runnable closer)
            implements AutoCloseable {
        public SalesPersister writer(PersistMode mode, EngineStats stats) {
            return writers.apply(mode, stats);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    private final Function<Config, Writers> opener;

    /** A module's writers, on its test database (TestDatabase.ofThisModule): how it opens its database layer. */
    protected SalesWriterContract(Function<Config, Writers> open) {
        this.opener = open;
    }

    /** For a subclass that says both by overriding {@link #database()} and {@link #open}. */
    protected SalesWriterContract() {
        this(null);
    }

    /** The test database of the module. */
    protected TestDatabase database() {
        return TestDatabase.ofThisModule();
    }

    /** The module's database layer on {@code config}. */
    protected Writers open(Config config) {
        return opener.apply(config);
    }

    /**
     * Ids never seen by this table, like a service's: reusing the ids of rows another test
     * deleted would make InnoDB lock the delete-marked index entries, and concurrent inserts
     * deadlock on them (a retry stores them all the same, but the tests count failures).
     */
    protected long base;

    @BeforeEach
    void emptyTable() throws Exception {
        database().deleteAllSales();
        base = System.currentTimeMillis() * 1000;
    }

    /** {@code n} sales, the first with PO id {@code firstPo}. */
    protected static List<Sale> sales(long firstPo, int n) {
        List<Sale> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Sale("b" + i, "s" + i, i % 100, 1000 + i, 1 + i % 10, firstPo + i, firstPo + 9_000_000 + i));
        }
        return out;
    }

    /** Starts storing; the future completes when the writer says every sale is stored. */
    protected static CompletableFuture<Void> storing(SalesPersister w, List<Sale> sales) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        w.store(sales, () -> done.complete(null));
        return done;
    }

    /** Stores and waits (a blocking writer has stored when it returns; a non-blocking one calls back). */
    protected static void store(SalesPersister w, List<Sale> sales, long seconds) throws Exception {
        storing(w, sales).get(seconds, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storesEverySaleExactlyAsTraded(PersistMode mode) throws Exception {
        try (Writers db = open(database().config())) {
            store(db.writer(mode, new EngineStats(0, new SalesWindow())), sales(base + 1, 2500), 60); // batch: three chunks
            assertEquals(2500, database().count(""));
            try (Connection conn = database().connect(); Statement s = conn.createStatement();
                 ResultSet rs = s.executeQuery("SELECT BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, SO_ID, CREATED FROM SALES WHERE PO_ID = " + (base + 1234))) {
                assertTrue(rs.next());
                assertEquals("b1233", rs.getString(1));
                assertEquals("s1233", rs.getString(2));
                assertEquals("33", rs.getString(3));
                assertEquals(0, new java.math.BigDecimal("22.33").compareTo(rs.getBigDecimal(4)));
                assertEquals(4, rs.getLong(5));
                assertEquals(base + 1 + 9_001_233, rs.getLong(6));
                assertTrue(Math.abs(System.currentTimeMillis() - rs.getLong(7)) < 60_000);
                assertFalse(rs.next());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void storingTheSameSalesAgainStoresNothingTwice(PersistMode mode) throws Exception {
        try (Writers db = open(database().config())) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            List<Sale> sales = sales(base + 1, 300);
            store(db.writer(mode, stats), sales, 30);
            store(db.writer(mode, stats), sales.subList(100, 300), 30); // a retry after a lost answer
            assertEquals(300, database().count(""));
            assertEquals(0, stats.persistenceFailures());
        }
    }

    /** The database goes away mid-cycle: the writer retries, then every sale is stored once. */
    @ParameterizedTest
    @EnumSource(PersistMode.class)
    void retriesThroughAnOutageWithoutLosingOrDoublingASale(PersistMode mode) throws Exception {
        Config direct = database().config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort());
             Writers db = open(database().config("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()), "DB_POOL", "2"))) {
            EngineStats stats = new EngineStats(0, new SalesWindow());
            SalesPersister writer = db.writer(mode, stats);
            store(writer, sales(base + 1, 10), 30); // the pool has live connections now
            proxy.cut();
            CompletableFuture<Void> stored = new CompletableFuture<>();
            // a blocking writer waits on this thread until it has stored: it gets one of its own
            Thread t = Thread.ofPlatform().start(() -> writer.store(sales(base + 1, 1500), () -> stored.complete(null)));
            Wait.until(() -> stats.persistenceFailures() > 0, "the writer met the outage");
            assertFalse(stored.isDone(), "nothing can be stored while the database is away");
            proxy.restore();
            stored.get(120, TimeUnit.SECONDS); // generous: the machine may be crowded
            t.join();
            assertTrue(stats.persistenceFailures() > 0, "the outage was seen");
            assertEquals(1500, database().count(""));
            assertEquals(1500, database().count("PO_ID BETWEEN " + (base + 1) + " AND " + (base + 1500)));
        }
    }
}
