package tradebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRequest;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.Side;

/**
 * What every Java variant's service shows over HTTP on its test database
 * (contract sections 3 and 6): SIGTERM's drain joins every accepted order and
 * stores every sale before the exit line, then refuses orders; an engine waits
 * out a database outage (its inbox fills, 503, /health down) and stores its
 * sale once; and the order view's read path ({@link ReadPathContract}). A variant's test class only
 * says its name and how to start itself.
 */
public abstract class ServiceContract extends ReadPathContract {

    /** A variant's service started in this JVM, as the suite reads it. */
    public record Running(int port, ServiceStats stats, OrderGateway gateway, Runnable drainer) {
        /** SIGTERM's drain; returns when the service has stopped. */
        public void drain() {
            drainer.run();
        }
    }

    /** How a variant starts its service with a {@link Config}. */
    @FunctionalInterface
    public interface Start<S> {
        S start(Config config) throws Exception;
    }

    private final String variant;
    private final Start<Running> launcher;

    /**
     * A variant's suite: {@code variant} is its name in the exit line and its module's
     * (TestDatabase.ofThisModule); {@code start} starts its service, whose port, stats, gateway
     * and drain the other arguments read.
     */
    protected <S> ServiceContract(String variant, Start<S> start, ToIntFunction<S> port, Function<S, ServiceStats> stats,
            Function<S, OrderGateway> gateway, Consumer<S> drain) {
        this.variant = variant;
        this.launcher = config -> {
            S service = start.start(config);
            return new Running(port.applyAsInt(service), stats.apply(service), gateway.apply(service),
                    () -> drain.accept(service));
        };
    }

    /**
     * Whether the drain wakes engines asleep in DELAY_MS (true) or lets each
     * finish its sleep before the last cycle (false).
     */
    protected boolean drainCutsTheSleepShort() {
        return true;
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final List<Running> started = new ArrayList<>();
    private final List<Running> drained = new ArrayList<>();
    protected TestDatabase tdb;

    private Running startWith(String... settings) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> all = new ArrayList<>(List.of("PORT", Integer.toString(port), "BIND", "127.0.0.1"));
        all.addAll(List.of(settings));
        Running service = launcher.start(tdb.config(all.toArray(String[]::new)));
        started.add(service);
        return service;
    }

    @Override
    protected int startService(String... settings) throws Exception {
        database();
        return startWith(settings).port();
    }

    @Override
    protected Config testDatabaseConfig() throws Exception {
        return database().config();
    }

    private String drain(Running service) {
        service.drain();
        drained.add(service);
        return service.stats().exitLine();
    }

    @AfterEach
    void stopWhatWasStarted() {
        for (Running s : started) {
            if (!drained.contains(s)) {
                try {
                    s.drain();
                } catch (RuntimeException alreadyStopped) {
                    // stopped by the test
                }
            }
        }
    }

    private TestDatabase database() throws Exception {
        tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        return tdb;
    }

    @ParameterizedTest
    @ValueSource(strings = {"per-sale", "batch"})
    void theDrainJoinsTheInboxesStoresEverySaleThenRefusesOrders(String persist) throws Exception {
        database();
        int pairs = 100;
        // engines that sleep between cycles (the longest DELAY_MS, where the drain cuts it short): the orders
        // still wait in the inboxes when the drain starts
        boolean cutShort = drainCutsTheSleepShort();
        Running service = startWith("ENGINES", "4", "DELAY_MS", cutShort ? "60000" : "10000", "PERSIST", persist);
        String base = "http://127.0.0.1:" + service.port();
        for (int i = 0; i < pairs; i++) {
            // one seller and one buyer per product, each for 1: one sale each, whatever cycle they land in
            assertEquals(202, post(base + "/sell?userId=s" + i + "&productId=" + i % 100 + "&quantity=1&price=10.5").statusCode());
            assertEquals(202, post(base + "/buy?userId=b" + i + "&productId=" + i % 100 + "&quantity=1").statusCode());
        }
        long stored = service.stats().salesPersisted();
        assertTrue(stored < pairs, "orders wait for their cycle when the drain starts (" + stored + " sales stored)");

        // a drain that waited out the 60 s sleep would miss the deadline; one that cuts it short is done in a moment
        String exit = cutShort
                ? assertTimeoutPreemptively(Duration.ofSeconds(30), () -> drain(service), "the drain cut the 60 s sleep short")
                : drain(service);

        assertEquals("exit variant=" + variant + " accepted=" + 2 * pairs + " sales=" + pairs, exit);
        assertEquals(pairs, tdb.count(""), "every sale the exit line counts is in SALES, once");
        assertEquals(OrderGateway.SHUTTING_DOWN,
                service.gateway().submit(new OrderRequest(Side.BUY, "late", 1, 1, Order.NO_LIMIT)),
                "after the drain every order is refused");
    }

    @Test
    void anEngineWaitsOutADatabaseOutageAndStoresItsSaleOnce() throws Exception {
        database();
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            Running service = startWith("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()),
                    "ENGINES", "1", "DELAY_MS", "1", "INBOX_LIMIT", "3", "PERSIST", "per-sale");
            String base = "http://127.0.0.1:" + service.port();

            proxy.cut();
            assertEquals(202, post(base + "/sell?userId=s1&productId=5&quantity=2&price=12.5").statusCode());
            assertEquals(202, post(base + "/buy?userId=b1&productId=5&quantity=2").statusCode());
            Wait.until(() -> service.stats().engine(0).persistenceFailures() > 0, "the insert failed");
            Wait.until(() -> get(base + "/health").statusCode() == 503, "/health says the database is down");

            // the engine waits for its write: its inbox (3) fills, then orders are refused
            for (int i = 0; i < 3; i++) {
                assertEquals(202, post(base + "/buy?userId=w" + i + "&productId=7&quantity=1").statusCode());
            }
            HttpResponse<String> refused = post(base + "/buy?userId=w9&productId=7&quantity=1");
            assertEquals(503, refused.statusCode());
            assertEquals("{\"error\":\"overloaded\"}", refused.body());
            assertEquals(0, service.stats().salesPersisted(), "nothing counts as stored while the database is away");

            proxy.restore();
            Wait.until(() -> service.stats().salesPersisted() == 1, "the sale is stored once the database is back");
            Wait.until(() -> get(base + "/health").statusCode() == 200, "/health says up again");
            assertEquals("exit variant=" + variant + " accepted=5 sales=1", drain(service));
            assertEquals(1, tdb.count(""), "stored once, not once per try");
            assertEquals(1, tdb.count("BUYER_NAME = 'b1' AND SELLER_NAME = 's1' AND QUANTITY = 2 AND PRICE = 12.50"));
        }
    }

    private static HttpResponse<String> post(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
