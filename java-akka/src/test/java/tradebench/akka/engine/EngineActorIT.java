package tradebench.akka.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import akka.testkit.javadsl.TestKit;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.akka.AkkaSettings;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.EngineProtocol;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.OrderStatus;
import tradebench.testing.EngineActorContract;

/** One engine actor on the real test database: the cycle protocol as messages (and EngineActorContract). */
class EngineActorIT extends EngineActorContract {
    private Database db;
    private ActorSystem system;
    private ActorRef engine;
    private GatedPersister persister;

    EngineActorIT() {
        super("java-akka");
    }

    private Engine start(String dispatcher) {
        Config config = tdb.config("PERSIST", "per-sale", "ENGINES", "1", "DISPATCHER", dispatcher);
        AkkaSettings akka = AkkaSettings.from(config);
        system = ActorSystem.create("engine-test", akka.akkaConfig());
        db = new Database(config);
        persister = new GatedPersister(db.writer(config.persist(), stats.engine(0)));
        engine = system.actorOf(EngineActor.props(partition(persister), 3, 60_000, OrderBookMarket::new,
                akka.dispatcher.dispatcherId()), "engine-0");
        return started(new Engine(persister, m -> engine.tell(m, ActorRef.noSender()), m -> Patterns.ask(engine, m, WAIT)));
    }

    @Override
    protected Engine startEngine() {
        return start("thread-pool");
    }

    @AfterEach
    void tearDown() {
        if (persister != null) persister.open();
        if (system != null) TestKit.shutdownActorSystem(system);
        if (db != null) db.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"thread-pool", "fork-join"})
    void salesAreStoredOnThePersistenceDispatcherThenTheOrdersAreFilled(String dispatcher) throws Exception {
        start(dispatcher);
        TestKit kit = new TestKit(system);
        Order so = send(sell(7, 5, 1050));
        Order po = send(buy(7, 3));
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
        start("thread-pool");
        TestKit kit = new TestKit(system);
        persister.shut();
        Order so1 = send(sell(3, 1, 500));
        Order po1 = send(buy(3, 1));
        assertTrue(persister.awaitHeld(10_000), "the first cycle's sale is being stored");
        long cyclesWhileHeld = stats.engine(0).cycles();

        Order so2 = send(sell(3, 1, 600));
        Order po2 = send(buy(3, 1));
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
        start("thread-pool");
        TestKit kit = new TestKit(system);
        persister.shut();
        send(sell(4, 2, 100));
        send(buy(4, 1));
        assertTrue(persister.awaitHeld(10_000));
        Order lateBuy = send(buy(4, 1)); // waits in the mailbox behind the held cycle

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
}
