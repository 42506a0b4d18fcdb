package tradebench.spray.engine;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import akka.testkit.javadsl.TestKit;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import tradebench.engine.Config;
import tradebench.engine.SalesPersister;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;
import tradebench.spray.db.AsyncDatabase;
import tradebench.testing.EngineActorContract;

/** One engine actor on the real test database (jasync): the drain as messages (EngineActorContract). */
class EngineActorIT extends EngineActorContract {
    private ActorSystem system;
    private AsyncDatabase db;

    EngineActorIT() {
        super("java-spray-async");
    }

    /**
     * The real writer, with its "stored" callback held back while shut: the engine sees its cycle's
     * sales still being stored, as behind a slow database. Counts the cycles it was given to store.
     */
    static final class GatedWriter implements Gate {
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

        @Override
        public void shut() {
            gate = new CountDownLatch(1);
        }

        @Override
        public void open() {
            gate.countDown();
        }

        @Override
        public boolean awaitHeld(long ms) throws InterruptedException {
            return held.await(ms, TimeUnit.MILLISECONDS);
        }

        @Override
        public int stores() {
            return stores.get();
        }
    }

    @Override
    protected Engine startEngine() {
        Config config = tdb.config("PERSIST", "per-sale", "ENGINES", "1");
        system = ActorSystem.create("engine-test");
        db = new AsyncDatabase(config, system.dispatcher(), system.scheduler());
        GatedWriter writer = new GatedWriter(db.writer(config.persist(), stats.engine(0)));
        ActorRef engine = system.actorOf(EngineActor.props(partition(writer), 3, 60_000, OrderBookMarket::new), "engine-0");
        return new Engine(writer, m -> engine.tell(m, ActorRef.noSender()), m -> Patterns.ask(engine, m, WAIT));
    }

    @AfterEach
    void tearDown() {
        if (db != null) db.close();
        if (system != null) TestKit.shutdownActorSystem(system);
    }
}
