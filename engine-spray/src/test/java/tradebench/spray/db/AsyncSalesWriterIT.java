package tradebench.spray.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesWindow;
import tradebench.testing.SalesWriterContract;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * The jasync writer against the real test database: the writers' contract,
 * and what only a non-blocking writer on a bounded pool must do.
 */
class AsyncSalesWriterIT extends SalesWriterContract {
    private static TestDatabase tdb;
    private static ActorSystem system;

    @BeforeAll
    static void start() {
        tdb = TestDatabase.ofThisModule();
        system = ActorSystem.create("writer-test");
    }

    @Override
    protected TestDatabase database() {
        return tdb;
    }

    @Override
    protected Writers open(Config config) {
        AsyncDatabase db = database(config);
        return new Writers((mode, stats) -> db.writer(mode, stats), db::close);
    }

    @AfterAll
    static void stop() {
        if (system != null) system.terminate();
    }

    private AsyncDatabase database(Config c) {
        return new AsyncDatabase(c, system.dispatcher(), system.scheduler());
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
            Wait.until(() -> tdb.count("") > 0, "the big cycle holds the only connection, storing");
            store(db.writer(PersistMode.PER_SALE, new EngineStats(1, new SalesWindow())), sales(base + 100_001, 1), 60);
            long smallDone = System.nanoTime();
            assertNull(bigDone.getNow(null), "the small cycle was stored while the big one was still running");
            bigDone.get(120, TimeUnit.SECONDS);
            assertTrue(smallDone < bigDone.get());
            assertEquals(3001, tdb.count(""));
            assertEquals(0, bigStats.persistenceFailures());
        }
    }
}
