package tradebench.spray.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.testkit.javadsl.TestKit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.EngineProtocol;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.Partition;
import tradebench.engine.SalesPersister;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;
import tradebench.spray.db.AsyncDatabase;
import tradebench.testing.TestDatabase;

/** One engine actor on the real test database (jasync): the drain as messages, as java-akka's EngineActorIT. */
class EngineActorIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() * 1000);

    private TestDatabase tdb;
    private ActorSystem system;
    private AsyncDatabase db;
    private final OrderRegistry registry = new OrderRegistry();
    private final ServiceStats stats = new ServiceStats("java-spray-async", 1);
    private final InboxLimit limit = new InboxLimit(100);

    /**
     * The real writer, with its "stored" callback held back while shut: the engine sees its cycle's
     * sales still being stored, as behind a slow database. Counts the cycles it was given to store.
     */
    static final class GatedWriter implements SalesPersister {
        private final SalesPersister real;
        private final CountDownLatch held = new CountDownLatch(1);
        private final AtomicInteger stores = new AtomicInteger();
        private volatile CountDownLatch gate = new CountDownLatch(0);

        GatedWriter(SalesPersister real) {
            this.real = real;
        }

        @Override
        public void store(List<Sale> sales, Runnable stored) {
            stores.incrementAndGet();
            CountDownLatch g = gate;
            real.store(sales, () -> {
                held.countDown();
                Thread.ofVirtual().start(() -> {
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    stored.run();
                });
            });
        }

        void shut() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        tdb = TestDatabase.forModule("java-spray-async");
        tdb.deleteAllSales();
    }

    @AfterEach
    void tearDown() {
        if (db != null) db.close();
        if (system != null) TestKit.shutdownActorSystem(system);
    }

    private Order send(ActorRef engine, Order o) {
        assertTrue(limit.tryAdmit());
        registry.register(o);
        engine.tell(new EngineProtocol.NewOrder(o), ActorRef.noSender());
        return o;
    }

    @Test
    void aDrainedEngineHasMadeNoSaleItDidNotStore() throws Exception {
        Config config = tdb.config("PERSIST", "per-sale", "ENGINES", "1");
        system = ActorSystem.create("engine-test");
        db = new AsyncDatabase(config, system.dispatcher(), system.scheduler());
        GatedWriter writer = new GatedWriter(db.writer(config.persist(), stats.engine(0)));
        ActorRef engine = system.actorOf(EngineActor.props(new Partition(0, limit, stats.engine(0), registry, writer),
                3, 60_000, OrderBookMarket::new), "engine-0");
        TestKit kit = new TestKit(system);

        // a buyer meets one seller per cycle: buying 3 from three sellers takes three cycles
        writer.shut();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 3; i++) send(engine, Order.sell(IDS.incrementAndGet(), "s" + i, 5, 1, 100 + i, now));
        send(engine, Order.buy(IDS.incrementAndGet(), "b5", 5, 3, Order.NO_LIMIT, now));
        assertTrue(writer.held.await(10, TimeUnit.SECONDS), "the first cycle's sale is being stored");

        engine.tell(EngineProtocol.Drain.INSTANCE, kit.getRef());
        writer.open();
        kit.expectMsg(WAIT, new EngineProtocol.Drained(0));
        // 200 ms is some 60 cycles at DELAY_MS=3: an engine that went on cycling would have traded the other two
        kit.expectNoMessage(Duration.ofMillis(200));
        assertEquals(1, writer.stores.get(), "the drain finished the cycle under way and traded no further");
        assertEquals(1, stats.salesPersisted());
        assertEquals(1, tdb.count(""));

        engine.tell(EngineProtocol.Drain.INSTANCE, kit.getRef());
        kit.expectMsg(WAIT, new EngineProtocol.Drained(0)); // asked again: answered at once
    }
}
