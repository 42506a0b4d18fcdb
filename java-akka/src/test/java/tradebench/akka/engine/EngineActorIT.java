package tradebench.akka.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.testkit.javadsl.TestKit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.engine.EngineProtocol;
import tradebench.engine.Partition;
import tradebench.akka.AkkaSettings;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.OrderStatus;
import tradebench.testing.TestDatabase;

/** One engine actor on the real test database: the cycle protocol as messages. */
class EngineActorIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() * 1000);

    private TestDatabase tdb;
    private Database db;
    private ActorSystem system;
    private final OrderRegistry registry = new OrderRegistry();
    private final ServiceStats stats = new ServiceStats("java-akka", 1);
    private final InboxLimit limit = new InboxLimit(100);
    private GatedPersister persister;

    @BeforeEach
    void setUp() throws Exception {
        tdb = TestDatabase.forModule("java-akka");
        tdb.deleteAllSales();
    }

    private ActorRef engine(String dispatcher) {
        Config config = tdb.config("PERSIST", "per-sale", "ENGINES", "1", "DISPATCHER", dispatcher);
        AkkaSettings akka = AkkaSettings.from(config);
        system = ActorSystem.create("engine-test", akka.akkaConfig());
        db = new Database(config);
        persister = new GatedPersister(db.writer(config.persist(), stats.engine(0)));
        Partition part = new Partition(0, limit, stats.engine(0), registry, persister);
        return system.actorOf(EngineActor.props(part, 3, 60_000, OrderBookMarket::new, akka.dispatcher.dispatcherId()), "engine-0");
    }

    @AfterEach
    void tearDown() {
        if (persister != null) persister.open();
        if (system != null) TestKit.shutdownActorSystem(system);
        if (db != null) db.close();
    }

    /** What the gateway's door does: admit, remember, tell. */
    private Order send(ActorRef engine, Order o) {
        assertTrue(limit.tryAdmit());
        registry.register(o);
        engine.tell(new EngineProtocol.NewOrder(o), ActorRef.noSender());
        return o;
    }

    private static Order sell(int product, long qty, long cents) {
        return Order.sell(IDS.incrementAndGet(), "s" + product, product, qty, cents, System.currentTimeMillis());
    }

    private static Order buy(int product, long qty) {
        return Order.buy(IDS.incrementAndGet(), "b" + product, product, qty, Order.NO_LIMIT, System.currentTimeMillis());
    }

    @ParameterizedTest
    @ValueSource(strings = {"thread-pool", "fork-join"})
    void salesAreStoredOnThePersistenceDispatcherThenTheOrdersAreFilled(String dispatcher) throws Exception {
        ActorRef engine = engine(dispatcher);
        TestKit kit = new TestKit(system);
        Order so = send(engine, sell(7, 5, 1050));
        Order po = send(engine, buy(7, 3));
        kit.awaitCond(WAIT, () -> stats.salesPersisted() == 1);
        assertEquals(1, tdb.count("PO_ID = " + po.id + " AND SO_ID = " + so.id + " AND QUANTITY = 3 AND PRICE = 10.50"));
        assertEquals(OrderStatus.FILLED, po.status());
        assertEquals(OrderStatus.OPEN, so.status(), "2 of 5 still for sale");
        assertEquals(0, limit.pending(), "joined orders give their places back");
        assertTrue(persister.lastThread.contains("persistence-" + dispatcher),
                "blocking JDBC runs on the " + dispatcher + " persistence dispatcher, not on " + persister.lastThread);
    }

    @Test
    void ordersArrivingWhileACycleIsStoredWaitForTheNextCycle() throws Exception {
        ActorRef engine = engine("thread-pool");
        TestKit kit = new TestKit(system);
        persister.shut();
        Order so1 = send(engine, sell(3, 1, 500));
        Order po1 = send(engine, buy(3, 1));
        assertTrue(persister.awaitHeld(10_000), "the first cycle's sale is being stored");
        long cyclesWhileHeld = stats.engine(0).cycles();

        Order so2 = send(engine, sell(3, 1, 600));
        Order po2 = send(engine, buy(3, 1));
        engine.tell(EngineProtocol.Run.INSTANCE, ActorRef.noSender()); // a stray Run starts no cycle either
        kit.expectNoMessage(Duration.ofMillis(300)); // plenty of DELAY_MS pauses, had the engine not waited
        assertEquals(cyclesWhileHeld, stats.engine(0).cycles(), "no cycle runs while the last one's sales are being stored");
        assertEquals(2, limit.pending(), "the new orders wait in the inbox");
        assertEquals(OrderStatus.OPEN, po1.status(), "not filled before its sale is stored");
        assertEquals(0, tdb.count("SO_ID = " + so1.id));

        persister.open();
        kit.awaitCond(WAIT, () -> stats.salesPersisted() == 2);
        assertEquals(1, tdb.count("PO_ID = " + po1.id + " AND SO_ID = " + so1.id));
        assertEquals(1, tdb.count("PO_ID = " + po2.id + " AND SO_ID = " + so2.id));
        assertEquals(OrderStatus.FILLED, po2.status());
        assertEquals(0, limit.pending());
        assertEquals(1, persister.maxInFlight.get(), "one write at a time per engine");
    }

    @Test
    void drainIsAnsweredOnlyWhenEveryOrderJoinedAndEverySaleIsStored() throws Exception {
        ActorRef engine = engine("thread-pool");
        TestKit kit = new TestKit(system);
        persister.shut();
        send(engine, sell(4, 2, 100));
        send(engine, buy(4, 1));
        assertTrue(persister.awaitHeld(10_000));
        Order lateBuy = send(engine, buy(4, 1)); // waits in the mailbox behind the held cycle

        engine.tell(EngineProtocol.Drain.INSTANCE, kit.getRef());
        kit.expectNoMessage(Duration.ofMillis(300));
        assertEquals(0, stats.salesPersisted());

        persister.open();
        kit.expectMsg(WAIT, new EngineProtocol.Drained(0));
        assertEquals(2, stats.salesPersisted(), "the late order joined and its sale was stored before the answer");
        assertEquals(2, tdb.count(""));
        assertEquals(OrderStatus.FILLED, lateBuy.status());
        assertEquals(0, limit.pending());
        assertFalse(persister.maxInFlight.get() > 1);

        long cycles = stats.engine(0).cycles();
        kit.expectNoMessage(Duration.ofMillis(200));
        assertEquals(cycles, stats.engine(0).cycles(), "a drained engine runs no more cycles: what they traded could not be stored");
        engine.tell(EngineProtocol.Drain.INSTANCE, kit.getRef());
        kit.expectMsg(WAIT, new EngineProtocol.Drained(0)); // asked again: answered at once
    }

    @Test
    void aDrainedEngineHasMadeNoSaleItDidNotStore() throws Exception {
        ActorRef engine = engine("thread-pool");
        TestKit kit = new TestKit(system);
        // a buyer meets one seller per cycle: buying 3 from three sellers takes three cycles
        persister.shut();
        for (int i = 0; i < 3; i++) send(engine, sell(5, 1, 100 + i));
        send(engine, buy(5, 3));
        assertTrue(persister.awaitHeld(10_000));
        engine.tell(EngineProtocol.Drain.INSTANCE, kit.getRef());
        persister.open();
        kit.expectMsg(WAIT, new EngineProtocol.Drained(0));
        kit.expectNoMessage(Duration.ofMillis(200));
        assertEquals(1, stats.salesPersisted(), "the drain finished the cycle under way and traded no further");
        assertEquals(1, tdb.count(""));
    }
}
