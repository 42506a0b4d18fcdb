package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesWindow;
import tradebench.testing.SalesWriterContract;
import tradebench.testing.TcpProxy;
import tradebench.testing.Wait;

/** java-virtual's writer against the real private database: the writers' contract, and inserts in flight together. */
class ConcurrentSalesWriterIT extends SalesWriterContract {
    ConcurrentSalesWriterIT() {
        super("engine-model", config -> {
            Database db = new Database(config, true);
            Semaphore permits = new Semaphore(config.dbPool());
            return new Writers((mode, stats) -> db.concurrentWriter(mode, stats, permits), db);
        });
    }

    /**
     * Behind a 50 ms round trip, 16 sales stored one after another take 800 ms; on 8 connections at once, two
     * round trips. And the writer returns only when all 16 are stored.
     */
    @Test
    void perSaleKeepsACyclesInsertsInFlightTogetherAndWaitsForAll() throws Exception {
        Config direct = database().config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort());
             Database db = new Database(database().config("DB_HOST", "127.0.0.1", "DB_PORT",
                     Integer.toString(proxy.port()), "DB_POOL", "8"), true)) {
            Wait.until(() -> db.openConnections() == 8, "the pool opened its 8 connections");
            EngineStats stats = new EngineStats(0, new SalesWindow());
            SalesPersister writer = db.concurrentWriter(PersistMode.PER_SALE, stats, new Semaphore(8));
            for (int i = 0; i < 3; i++) store(writer, sales(base + 1, 8), 30); // each connection's statement prepared
            proxy.delayAnswers(50);
            long t0 = System.nanoTime();
            store(writer, sales(base + 101, 16), 30);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(24, database().count(""), "every sale stored when store returned");
            assertTrue(ms >= 100, "at most 8 in flight: at least two round trips, took " + ms + " ms");
            assertTrue(ms < 400, "in flight together: far less than 16 round trips (800 ms), took " + ms + " ms");
            assertEquals(0, stats.persistenceFailures());
        }
    }
}
