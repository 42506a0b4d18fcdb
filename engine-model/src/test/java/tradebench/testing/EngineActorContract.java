package tradebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tradebench.engine.EngineProtocol;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.Partition;
import tradebench.engine.SalesPersister;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;

/**
 * What every engine actor (java-akka's, java-spray-async's) shows on the real
 * test database, as messages of {@link EngineProtocol}: asked to drain, it
 * finishes the cycle under way, stores its sales, answers, and trades no
 * further. A variant's test class says how to start its engine actor over a
 * {@link Partition} with its own writer behind a {@link Gate}, and how a
 * message reaches it.
 */
public abstract class EngineActorContract {
    protected static final Duration WAIT = Duration.ofSeconds(10);
    private static final AtomicLong IDS = new AtomicLong(System.currentTimeMillis() * 1000);

    /**
     * The variant's real writer behind a gate the test opens: while it is shut, a cycle's
     * sales stay "being stored", as behind a slow database.
     */
    public interface Gate extends SalesPersister {
        void shut();

        void open();

        /** Waits until a cycle's sales are held at the gate. */
        boolean awaitHeld(long ms) throws InterruptedException;

        /** How many cycles' sales the engine gave it to store. */
        int stores();
    }

    protected TestDatabase tdb;
    protected final OrderRegistry registry = new OrderRegistry();
    protected final ServiceStats stats;
    protected final InboxLimit limit = new InboxLimit(100);

    /** {@code variant}: its name in the stats (the engine stores into its module's database, TestDatabase.ofThisModule). */
    protected EngineActorContract(String variant) {
        this.stats = new ServiceStats(variant, 1);
    }

    @BeforeEach
    void emptyTheSalesTable() throws Exception {
        tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
    }

    /** A started engine actor: its writer's gate, and how a message is sent to it (without and with a reply). */
    public record Engine(Gate gate, Consumer<Object> tell, Function<Object, CompletionStage<Object>> ask) {
    }

    /** Starts engine 0 (PERSIST per-sale, a 3 ms pause between cycles) on {@code partition(gate)}. */
    protected abstract Engine startEngine() throws Exception;

    private Engine engine;

    /** Makes {@code started} the engine {@link #send} talks to (a variant's own tests start theirs too); returns it. */
    protected final Engine started(Engine started) {
        engine = started;
        return started;
    }

    /** Engine 0's partition of this suite's inbox limit, stats and registry, storing through {@code writer}. */
    protected Partition partition(SalesPersister writer) {
        return new Partition(0, limit, stats.engine(0), registry, writer);
    }

    /** What the gateway's door does: admit, remember, tell. */
    protected Order send(Order o) {
        assertTrue(limit.tryAdmit());
        registry.register(o);
        engine.tell().accept(new EngineProtocol.NewOrder(o));
        return o;
    }

    protected static Order sell(int product, long qty, long cents) {
        return Order.sell(IDS.incrementAndGet(), "s" + product, product, qty, cents, System.currentTimeMillis());
    }

    protected static Order buy(int product, long qty) {
        return Order.buy(IDS.incrementAndGet(), "b" + product, product, qty, Order.NO_LIMIT, System.currentTimeMillis());
    }

    /** Asks for a drain; completes with the answer. */
    private CompletableFuture<Object> drain() {
        return engine.ask().apply(EngineProtocol.Drain.INSTANCE).toCompletableFuture();
    }

    @Test
    void aDrainedEngineHasMadeNoSaleItDidNotStore() throws Exception {
        Gate gate = started(startEngine()).gate();
        // a buyer meets one seller per cycle: buying 3 from three sellers takes three cycles
        gate.shut();
        for (int i = 0; i < 3; i++) send(sell(5, 1, 100 + i));
        send(buy(5, 3));
        assertTrue(gate.awaitHeld(10_000), "the first cycle's sale is being stored");

        CompletableFuture<Object> drained = drain();
        gate.open();
        assertEquals(new EngineProtocol.Drained(0), drained.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        // 200 ms is some 60 cycles at 3 ms: an engine that went on cycling would have traded the other two
        Thread.sleep(200);
        assertEquals(1, gate.stores(), "the drain finished the cycle under way and traded no further");
        assertEquals(1, stats.salesPersisted());
        assertEquals(1, tdb.count(""));
        assertEquals(new EngineProtocol.Drained(0), drain().get(WAIT.toMillis(), TimeUnit.MILLISECONDS),
                "asked again: answered at once");
    }
}
