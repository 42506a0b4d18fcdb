package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesWindow;
import tradebench.model.Sale;
import tradebench.testing.SalesWriterContract;
import tradebench.testing.TcpProxy;
import tradebench.testing.Wait;

/** java-virtual's writer against the real private database: the writers' contract, and inserts in flight together. */
class ConcurrentSalesWriterIT extends SalesWriterContract {
    ConcurrentSalesWriterIT() {
        super(config -> {
            Database db = new Database(config, true);
            InFlightLimit inFlight = db.inFlightLimit(config.engines());
            return new Writers((mode, stats) -> db.concurrentWriter(mode, stats, inFlight), db::close);
        });
    }

    /**
     * Behind a 50 ms round trip, 16 sales stored one after another are 16 round trips; on 8 connections at
     * once, two: the limit learnt from round trips that are all latency stays near the pool's 8, and the
     * proxy sees several answers held at once. The writer returns only when all 16 are stored.
     */
    @Test
    void perSaleKeepsACyclesInsertsInFlightTogetherAndWaitsForAll() throws Exception {
        try (SlowDatabase slow = slowDatabase(8)) {
            TcpProxy proxy = slow.proxy();
            Database db = slow.db();
            EngineStats stats = new EngineStats(0, new SalesWindow());
            InFlightLimit inFlight = db.inFlightLimit(1);
            SalesPersister writer = db.concurrentWriter(PersistMode.PER_SALE, stats, inFlight);
            proxy.delayAnswers(50);
            for (int i = 0; i < 3; i++) store(writer, sales(base + 1, 8), 30); // each connection's statement prepared
            proxy.resetPeak();
            long ms = storeTimedMs(writer, sales(base + 101, 16));
            assertEquals(24, database().count(""), "every sale stored when store returned");
            assertTrue(ms >= 100, "at most 8 in flight: at least two round trips, took " + ms + " ms");
            assertTrue(proxy.peakHeldAnswers() > 4, "in flight together, more than half the pool at once: "
                    + proxy.peakHeldAnswers() + " round trips at most");
            assertEquals(0, stats.persistenceFailures());
            assertTrue(inFlight.limit() > 4, "round trips of latency, not queueing: the limit stays near the pool's size, "
                    + inFlight.limit());
        }
    }

    /**
     * One engine of four, the other three between cycles: its cycle takes every place of the limit they
     * leave, not a quarter of it (2 of 8): more than 2 of its round trips are in flight at once.
     */
    @Test
    void aCycleUsesThePlacesTheOtherEnginesLeave() throws Exception {
        try (SlowDatabase slow = slowDatabase(8)) {
            TcpProxy proxy = slow.proxy();
            Database db = slow.db();
            EngineStats stats = new EngineStats(0, new SalesWindow());
            InFlightLimit inFlight = db.inFlightLimit(4);
            SalesPersister writer = db.concurrentWriter(PersistMode.PER_SALE, stats, inFlight);
            proxy.delayAnswers(50);
            for (int i = 0; i < 3; i++) store(writer, sales(base + 1 + 8L * i, 8), 30); // each connection's statement prepared
            proxy.resetPeak();
            store(writer, sales(base + 101, 16), 30);
            assertEquals(40, database().count(""), "every sale stored when store returned");
            assertTrue(proxy.peakHeldAnswers() > 2, "more places than a quarter of 8: " + proxy.peakHeldAnswers()
                    + " round trips at once at most");
        }
    }

    /**
     * On connections that have not prepared the INSERT yet (a round trip each, the first time), the lanes
     * start together: their 8 prepares are in flight at once. Lanes that started one round trip after
     * another would have at most 5 in flight before the 16 sales ran out (6 + 5 + 4 + 3 + 2 + 1 > 16).
     */
    @Test
    void lanesStartTogetherOnFreshConnections() throws Exception {
        try (SlowDatabase slow = slowDatabase(8)) {
            TcpProxy proxy = slow.proxy();
            Database db = slow.db();
            EngineStats stats = new EngineStats(0, new SalesWindow());
            SalesPersister writer = db.concurrentWriter(PersistMode.PER_SALE, stats, db.inFlightLimit(1));
            proxy.delayAnswers(100);
            proxy.resetPeak();
            store(writer, sales(base + 1, 16), 30);
            assertEquals(16, database().count(""), "every sale stored when store returned");
            assertTrue(proxy.peakHeldAnswers() >= 7, "the lanes started together: " + proxy.peakHeldAnswers()
                    + " round trips at once at most");
        }
    }

    /**
     * Next door (no added latency) 64 inserts in flight on a 64-connection pool mostly queue inside the
     * database: the limit falls below the pool's size, and every sale is still stored once. How far below
     * depends on the machine: the limit's rate probes keep a doubled floor wherever it stored at least 1.15
     * times as much (InFlightLimit), and a database with idle cores does (39 on an idle 2-CPU machine).
     */
    @Test
    void nextDoorTheLimitFallsBelowThePoolsSize() throws Exception {
        try (Database db = new Database(database().config("DB_POOL", "64"), true)) {
            Wait.until(() -> db.openConnections() == 64, "the pool opened its 64 connections");
            EngineStats stats = new EngineStats(0, new SalesWindow());
            InFlightLimit inFlight = db.inFlightLimit(1);
            SalesPersister writer = db.concurrentWriter(PersistMode.PER_SALE, stats, inFlight);
            int cycles = 40, perCycle = 128;
            for (int i = 0; i < cycles; i++) store(writer, sales(base + 1 + (long) i * perCycle, perCycle), 30);
            assertEquals(cycles * perCycle, database().count(""), "every sale stored, once");
            assertTrue(inFlight.limit() < 64, "the round trips were queueing: limit " + inFlight.limit());
        }
    }

    /**
     * A lane reads without a socket timeout (StallWatch says why): an insert whose answer does not come
     * within the watch's limit fails, its connection aborted, and the writer stores it again once the
     * database answers, exactly once.
     */
    @Test
    void aStalledInsertIsAbortedAndStoredAgain() throws Exception {
        try (SlowDatabase slow = slowDatabase(2); StallWatch watch = new StallWatch(Duration.ofMillis(400))) {
            TcpProxy proxy = slow.proxy();
            EngineStats stats = new EngineStats(0, new SalesWindow());
            SalesPersister writer = new ConcurrentSalesWriter(slow.db(), PersistMode.PER_SALE, stats,
                    slow.db().inFlightLimit(1), watch);
            store(writer, sales(base + 1, 2), 30); // each connection's statement prepared
            proxy.delayAnswers(120_000);
            // a blocking writer: it returns once every sale is stored
            CompletableFuture<Void> stored = CompletableFuture.runAsync(() -> writer.store(sales(base + 11, 2), () -> { }));
            Wait.until(() -> stats.persistenceFailures() > 0, "the stalled insert failed");
            proxy.delayAnswers(0);
            stored.get(30, TimeUnit.SECONDS);
            assertEquals(4, database().count(""), "every sale stored, once");
        }
    }

    /** Stores SALES with WRITER; the milliseconds until it returned. */
    private long storeTimedMs(SalesPersister writer, List<Sale> sales) throws Exception {
        long t0 = System.nanoTime();
        store(writer, sales, 30);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** The test database behind a TCP proxy that can delay its answers, with a full pool of POOL connections. */
    private SlowDatabase slowDatabase(int pool) throws Exception {
        Config direct = database().config();
        TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort());
        Database db = new Database(database().config("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()),
                "DB_POOL", Integer.toString(pool)), true);
        SlowDatabase slow = new SlowDatabase(proxy, db);
        try {
            Wait.until(() -> db.openConnections() == pool, "the pool opened its " + pool + " connections");
            return slow;
        } catch (Exception | AssertionError e) {
            slow.close();
            throw e;
        }
    }

    private record SlowDatabase(TcpProxy proxy, Database db) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (proxy) {
                db.close();
            }
        }
    }
}
