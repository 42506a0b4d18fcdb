package tradebench.akka.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.testkit.javadsl.TestKit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tradebench.engine.EngineProtocol;
import tradebench.engine.Partition;
import tradebench.akka.AkkaSettings;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.testing.TestDatabase;

/** An engine whose cycle throws is restarted by its parent; it keeps its partition and the other engines trade on. */
class SupervisionIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() * 1000 + 500_000_000);

    private TestDatabase tdb;
    private Database db;
    private ActorSystem system;
    private final OrderRegistry registry = new OrderRegistry();
    private final ServiceStats stats = new ServiceStats("java-akka", 2);
    private final AtomicInteger marketsMade = new AtomicInteger();
    private Engines engines;

    @BeforeEach
    void setUp() throws Exception {
        tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
    }

    private void start(String... extra) {
        String[] settings = java.util.stream.Stream.concat(java.util.stream.Stream.of("ENGINES", "2", "PERSIST", "batch"),
                java.util.Arrays.stream(extra)).toArray(String[]::new);
        Config config = tdb.config(settings);
        AkkaSettings akka = AkkaSettings.from(config);
        system = ActorSystem.create("supervision-test", akka.akkaConfig());
        db = new Database(config);
        engines = Engines.start(system, config, db, registry, stats, () -> {
            marketsMade.incrementAndGet();
            return new PoisonMarket();
        }, akka.dispatcher.dispatcherId());
    }

    @AfterEach
    void tearDown() {
        if (system != null) TestKit.shutdownActorSystem(system);
        if (db != null) db.close();
    }

    /** As the gateway does it. Product p belongs to engine p % 2. */
    private Order send(Order o) {
        registry.register(o);
        assertTrue(engines.offer(o.productId % 2, o));
        return o;
    }

    private static Order sell(String user, int product) {
        return Order.sell(IDS.incrementAndGet(), user, product, 1, 1000, System.currentTimeMillis());
    }

    private static Order buy(String user, int product) {
        return Order.buy(IDS.incrementAndGet(), user, product, 1, Order.NO_LIMIT, System.currentTimeMillis());
    }

    @Test
    void aFailingEngineIsRestartedInPlaceAndTheOthersKeepTrading() throws Exception {
        start();
        TestKit kit = new TestKit(system);
        ActorRef engine0 = engines.engine(0);
        // before: a stored sale on engine 0, an open order on each engine
        send(sell("s", 0));
        send(buy("b", 0));
        Order openOn0 = send(sell("s", 2));
        Order openOn1 = send(sell("s", 1));
        kit.awaitCond(WAIT, () -> stats.salesPersisted() == 1 && stats.engine(1).openOrders() == 1 && stats.engine(0).openOrders() == 1);
        assertEquals(2, marketsMade.get());

        send(sell(PoisonMarket.POISON, 0)); // engine 0's next cycle throws
        kit.awaitCond(WAIT, () -> marketsMade.get() == 3);
        long cycles1 = stats.engine(1).cycles();

        // engine 0: same actor, same products, a fresh market
        Order so = send(sell("s2", 4));
        Order po = send(buy("b2", 4));
        kit.awaitCond(WAIT, () -> po.status() == OrderStatus.FILLED);
        assertEquals(1, tdb.count("PO_ID = " + po.id + " AND SO_ID = " + so.id));
        assertEquals(engine0, engines.engine(0));
        // engine 1 kept its market: the order placed before the crash trades now
        Order po1 = send(buy("b3", 1));
        kit.awaitCond(WAIT, () -> po1.status() == OrderStatus.FILLED);
        assertEquals(1, tdb.count("PO_ID = " + po1.id + " AND SO_ID = " + openOn1.id));
        assertTrue(stats.engine(1).cycles() > cycles1, "engine 1 kept running cycles");

        // what engine 0 lost: its open orders (forgotten: /orders/{id} says unknown); what it kept: its stored sales
        assertNull(registry.find(openOn0.id));
        assertNotNull(registry.find(openOn1.id));
        assertEquals(3, tdb.count(""));
        assertEquals(3, stats.salesPersisted());
        assertEquals(0, engines.partition(0).limit().pending(), "the inbox limit counts no lost order");
        assertEquals(0, engines.partition(1).limit().pending());
        assertEquals(3, marketsMade.get(), "only engine 0 was restarted, once");
    }

    @Test
    void ordersWaitingInTheMailboxSurviveTheRestart() throws Exception {
        start("DELAY_MS", "60000"); // no cycle but the ones this test asks for (and the one each start runs)
        TestKit kit = new TestKit(system);
        ActorRef engine0 = engines.engine(0);
        kit.awaitCond(WAIT, () -> stats.engine(0).cycles() == 1); // the start's cycle is behind us

        Order poison = send(sell(PoisonMarket.POISON, 0));
        engine0.tell(EngineProtocol.Run.INSTANCE, ActorRef.noSender()); // this cycle joins the poison and throws
        Order so = send(sell("s", 0));                              // these two wait in the mailbox meanwhile
        Order po = send(buy("b", 0));

        // the restarted engine's first cycle joins them
        kit.awaitCond(WAIT, () -> po.status() == OrderStatus.FILLED);
        assertEquals(3, marketsMade.get());
        assertEquals(1, tdb.count("PO_ID = " + po.id + " AND SO_ID = " + so.id));
        assertNull(registry.find(poison.id), "the order that broke the cycle is forgotten");
        assertEquals(0, engines.partition(0).limit().pending());
    }
}
