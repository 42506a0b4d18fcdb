package tradebench.threads.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.db.Database;
import tradebench.engine.ThreadKind;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.OrderRequest;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.Side;
import tradebench.testing.TestDatabase;

/**
 * The inbox hand-over under concurrent requests: many threads submit through
 * the gateway while the engines cycle (and their small inboxes overflow).
 * Every accepted order must join its engine's market exactly once, and no
 * refused order may join at all. Engines on platform threads, then on virtual ones.
 */
class InboxHandOverIT {
    private static final int ENGINES = 4;
    private static final int SUBMITTERS = 16;
    private static final int ORDERS_EACH = 4000;

    @ParameterizedTest
    @ValueSource(strings = {"platform", "virtual"})
    void everyAcceptedOrderJoinsExactlyOnceAndNoRefusedOne(String threads) throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        Config config = tdb.config("ENGINES", "" + ENGINES, "DELAY_MS", "1", "INBOX_LIMIT", "50", "PERSIST", "batch",
                "THREADS", threads);
        List<RecordingMarket> markets = new CopyOnWriteArrayList<>();
        Set<Long> accepted = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        ServiceStats stats = new ServiceStats("java-threads", ENGINES);
        try (Database db = new Database(config)) {
            OrderRegistry registry = new OrderRegistry();
            EngineThreads engines = EngineThreads.start(config, ThreadKind.of(config), registry, stats, () -> {
                RecordingMarket m = new RecordingMarket();
                markets.add(m);
                return m;
            }, db::writer);
            IdSource ids = new IdSource(db.largestStoredOrderId(10_000));
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);

            CountDownLatch go = new CountDownLatch(1);
            List<Thread> submitters = new ArrayList<>();
            for (int t = 0; t < SUBMITTERS; t++) {
                Random random = new Random(42 + t);
                submitters.add(Thread.ofPlatform().start(() -> {
                    await(go);
                    for (int i = 0; i < ORDERS_EACH; i++) {
                        OrderRequest r = randomOrder(random);
                        switch (gateway.submit(r)) {
                            case OrderGateway.Accepted a -> accepted.add(a.id());
                            case OrderGateway.Refused x -> {
                                assertEquals(OrderGateway.OVERLOADED, x);
                                refused.incrementAndGet();
                            }
                        }
                    }
                }));
            }
            go.countDown();
            for (Thread t : submitters) t.join();
            engines.drain();

            assertEquals(SUBMITTERS * ORDERS_EACH, accepted.size() + refused.get(), "every submit answered once");
            assertTrue(refused.get() > 0, "the inboxes of 50 overflowed at least once (the 503 path ran)");
            assertEquals(ENGINES, markets.size(), "one market per engine, none restarted");

            Map<Long, Integer> joins = new HashMap<>();
            for (RecordingMarket m : markets) {
                Set<Integer> owners = new HashSet<>();
                for (Order o : m.joined) {
                    joins.merge(o.id, 1, Integer::sum);
                    owners.add(config.engineOf(o.productId));
                }
                assertTrue(owners.size() <= 1, "a market holds the products of one engine only: " + owners);
            }
            assertEquals(accepted.size(), joins.size(), "every accepted order joined, and nothing else did");
            assertTrue(joins.keySet().containsAll(accepted), "every accepted order joined");
            joins.forEach((id, n) -> assertEquals(1, n, "order " + id + " joined " + n + " times"));

            assertEquals(accepted.size(), stats.accepted(), "stats count every 202");
            assertEquals(refused.get(), stats.overloadedCount(), "stats count every 503");
            for (int i = 0; i < ENGINES; i++) {
                assertEquals(0, engines.engine(i).restarts(), "no cycle failed");
                assertEquals(0, stats.engine(i).pendingOrders(), "inbox " + i + " is empty after the drain");
            }
            assertTrue(stats.salesPersisted() > 0, "the random orders traded");
            assertEquals(stats.salesPersisted(), tdb.count(""), "every sale counted is one SALES row");
        }
    }

    private static OrderRequest randomOrder(Random random) {
        int product = random.nextInt(100);
        int quantity = 1 + random.nextInt(10);
        if (random.nextBoolean()) {
            return new OrderRequest(Side.BUY, "b" + random.nextInt(200), product, quantity, Order.NO_LIMIT);
        }
        return new OrderRequest(Side.SELL, "s" + random.nextInt(200), product, quantity, 1000 + random.nextInt(19_001));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
