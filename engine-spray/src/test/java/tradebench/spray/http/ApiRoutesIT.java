package tradebench.spray.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.FormData;
import akka.http.javadsl.model.HttpMethods;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.HttpHeader;
import akka.japi.Pair;
import akka.japi.function.Function;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.spray.db.AsyncDatabase;
import tradebench.testing.BadInput;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * The API without a socket: requests go straight into the handler the server
 * binds (orders without a form body answered directly, the rest by the sealed
 * route). The engines are a door that records what reaches it (or
 * refuses, to play a full inbox); the database is the real test database.
 */
class ApiRoutesIT {
    private static TestDatabase tdb;
    private static ActorSystem system;
    private static AsyncDatabase db;

    private final List<Order> reached = new ArrayList<>();
    private volatile boolean refuse;
    private OrderGateway gateway;
    private Function<HttpRequest, CompletionStage<HttpResponse>> api;

    @BeforeAll
    static void start() {
        tdb = TestDatabase.ofThisModule();
        system = ActorSystem.create("routes-test");
        db = new AsyncDatabase(tdb.config(), system.dispatcher(), system.scheduler());
    }

    @AfterAll
    static void stop() {
        if (db != null) db.close();
        if (system != null) system.terminate();
    }

    @BeforeEach
    void fresh() throws Exception {
        tdb.deleteAllSales();
        Config c = tdb.config("PRODUCTS", "100", "ENGINES", "4");
        gateway = new OrderGateway(c, new IdSource(0), new OrderRegistry(), new ServiceStats("engine-spray", 4),
                (engine, order) -> {
                    if (refuse) return false;
                    synchronized (reached) {
                        reached.add(order);
                    }
                    return true;
                });
        api = new ApiRoutes(gateway, db).handler(system);
    }

    private HttpResponse send(HttpRequest r) throws Exception {
        return api.apply(r).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static String body(HttpResponse r) throws Exception {
        return r.entity().toStrict(5000, akka.stream.Materializer.matFromSystem(system))
                .toCompletableFuture().get(5, TimeUnit.SECONDS).getData().utf8String();
    }

    private static String header(HttpResponse r, String name) {
        return r.getHeader(name).map(HttpHeader::value).orElse(null);
    }

    private void expect(HttpResponse r, int status, String body) throws Exception {
        assertEquals(status, r.status().intValue(), () -> "body " + safeBody(r));
        assertEquals(ContentTypes.APPLICATION_JSON, r.entity().getContentType());
        assertEquals(body, body(r));
    }

    private static String safeBody(HttpResponse r) {
        try {
            return body(r);
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void anOrderIsAnswered202AtOnceAndHandedToItsEngine() throws Exception {
        HttpResponse r = send(HttpRequest.POST("/sell?userId=s1&productId=7&quantity=5&price=10.5"));
        assertEquals(202, r.status().intValue());
        String b = body(r);
        assertTrue(b.matches("\\{\"id\":\\d+,\"side\":\"sell\",\"status\":\"accepted\"}"), b);
        HttpResponse g = send(HttpRequest.GET("/buy?userId=b1&productId=7&quantity=3"));
        assertEquals(202, g.status().intValue(), "GET is accepted too, as in 2014");
        assertEquals(2, reached.size());
        Order sell = reached.get(0);
        assertEquals("s1", sell.userId);
        assertEquals(7, sell.productId);
        assertEquals(5, sell.quantity);
        assertEquals(1050, sell.priceCents);
        assertTrue(reached.get(1).id > sell.id, "ids increase in the order of acceptance");
        assertEquals(2, gateway.stats().accepted());
    }

    @Test
    void aFormBodyIsReadBesideTheQueryString() throws Exception {
        HttpResponse r = send(HttpRequest.POST("/sell?userId=s1")
                .withEntity(FormData.create(List.of(Pair.create("productId", "3"), Pair.create("quantity", "2"),
                        Pair.create("price", "1.25"))).toEntity()));
        assertEquals(202, r.status().intValue(), () -> safeBody(r));
        assertEquals(125, reached.get(0).priceCents);
        HttpResponse twice = send(HttpRequest.POST("/sell?userId=s1&quantity=2")
                .withEntity(FormData.create(List.of(Pair.create("productId", "3"), Pair.create("quantity", "2"),
                        Pair.create("price", "1"))).toEntity()));
        expect(twice, 400, "{\"error\":\"parameter quantity given more than once\"}");
    }

    @Test
    void badInputIsA400NamingTheProblemAndNeverReachesAnEngine() throws Exception {
        for (BadInput.Case c : BadInput.REFUSED) {
            expect(send(HttpRequest.create(c.uri()).withMethod(HttpMethods.lookup(c.method()).get())), 400, c.body());
        }
        assertTrue(reached.isEmpty());
        assertEquals(BadInput.REFUSED.size(), gateway.stats().rejectedCount());
        assertEquals(0, gateway.stats().accepted());
    }

    /** The bound handler answers orders itself; what it answers must be exactly what the sealed route answers. */
    @Test
    void theHandlersShortcutAnswersAsTheRouteDoes() throws Exception {
        Function<HttpRequest, CompletionStage<HttpResponse>> route = new ApiRoutes(gateway, db).route().handler(system);
        List<HttpRequest> requests = List.of(
                HttpRequest.POST("/sell?userId=s1&productId=7&quantity=5&price=10.5"),
                HttpRequest.GET("/buy?userId=b1&productId=7&quantity=3"),
                HttpRequest.POST("/buy?userId=b1&productId=7&quantity=3&price=20"),
                HttpRequest.GET("/buy?userId=b1&productId=7&quantity=0"),
                HttpRequest.GET("/sell?userId=s1&productId=7&quantity=1"),
                HttpRequest.GET("/buy?userId=b1&productId=1&quantity=1&quantity=2"),
                HttpRequest.GET("/b%75y?userId=b1&productId=1&quantity=1"),
                HttpRequest.GET("/buy/"),
                HttpRequest.PUT("/buy?userId=b1&productId=1&quantity=1"),
                HttpRequest.create("/sell").withMethod(HttpMethods.HEAD),
                HttpRequest.POST("/sell?userId=s1").withEntity(FormData.create(List.of(Pair.create("productId", "3"),
                        Pair.create("quantity", "2"), Pair.create("price", "1.25"))).toEntity()));
        for (HttpRequest r : requests) {
            HttpResponse viaRoute = route.apply(r).toCompletableFuture().get(10, TimeUnit.SECONDS);
            HttpResponse viaHandler = send(r);
            String what = r.method().name() + " " + r.getUri();
            assertEquals(viaRoute.status(), viaHandler.status(), what);
            assertEquals(viaRoute.entity().getContentType(), viaHandler.entity().getContentType(), what);
            assertEquals(header(viaRoute, "Retry-After"), header(viaHandler, "Retry-After"), what);
            assertEquals(header(viaRoute, "Allow"), header(viaHandler, "Allow"), what);
            // the ids differ (two orders); everything else is the same
            assertEquals(body(viaRoute).replaceAll("\"id\":\\d+", "\"id\":N"),
                    body(viaHandler).replaceAll("\"id\":\\d+", "\"id\":N"), what);
        }
        assertEquals(10, reached.size(), "each of the 5 valid orders reached its engine once per path");
    }

    /**
     * A plain query string is split by OrderParams.plainQuery, any other by Akka HTTP: the same
     * order written both ways (percent-escapes make Akka parse it) must reach the engine the
     * same, and bad ones be refused with the same message.
     */
    @Test
    void aPlainQueryAndAnEscapedOneAreTheSameOrder() throws Exception {
        for (String[] p : BadInput.SAME_ORDER_PLAIN_AND_ESCAPED) {
            assertEquals(202, send(HttpRequest.POST(p[0])).status().intValue(), p[0]);
            assertEquals(202, send(HttpRequest.POST(p[1])).status().intValue(), p[1]);
        }
        int accepted = 2 * BadInput.SAME_ORDER_PLAIN_AND_ESCAPED.size();
        assertEquals(accepted, reached.size());
        for (int i = 0; i < accepted; i += 2) {
            Order a = reached.get(i), b = reached.get(i + 1);
            assertEquals(List.of(a.side, a.userId, a.productId, a.quantity, a.priceCents),
                    List.of(b.side, b.userId, b.productId, b.quantity, b.priceCents));
        }
        for (String[] p : BadInput.REFUSED_PLAIN_AND_ESCAPED) {
            HttpResponse plain = send(HttpRequest.GET(p[0]));
            assertEquals(400, plain.status().intValue(), p[0]);
            assertEquals(body(send(HttpRequest.GET(p[1]))), body(plain), p[0]);
        }
        assertEquals(accepted, reached.size(), "no bad order reached the engine");
    }

    @Test
    void unknownPathsAndWrongMethodsAreJsonErrors() throws Exception {
        expect(send(HttpRequest.GET("/nope")), 404, "{\"error\":\"not found: /nope\"}");
        expect(send(HttpRequest.GET("/buy/")), 404, "{\"error\":\"not found: /buy/\"}");
        expect(send(HttpRequest.GET("/orders")), 404, "{\"error\":\"not found: /orders\"}");
        expect(send(HttpRequest.POST("/faults/crash-engine?engine=0")), 404,
                "{\"error\":\"not found: /faults/crash-engine\"}"); // FAULTS is off
        HttpResponse put = send(HttpRequest.PUT("/buy?userId=b1&productId=1&quantity=1"));
        expect(put, 405, "{\"error\":\"method not allowed: PUT /buy\"}");
        assertEquals("GET, POST", header(put, "Allow"));
        HttpResponse del = send(HttpRequest.create("/stats").withMethod(HttpMethods.DELETE));
        expect(del, 405, "{\"error\":\"method not allowed: DELETE /stats\"}");
        assertEquals("GET", header(del, "Allow"));
        assertTrue(reached.isEmpty());
    }

    @Test
    void aFullInboxIs503WithRetryAfterAndNothingIsRemembered() throws Exception {
        refuse = true;
        HttpResponse r = send(HttpRequest.GET("/buy?userId=b1&productId=1&quantity=1"));
        expect(r, 503, "{\"error\":\"overloaded\"}");
        assertEquals("1", header(r, "Retry-After"));
        assertEquals(1, gateway.stats().overloadedCount());
        assertEquals(0, gateway.stats().accepted());
        assertEquals(0, gateway.registry().size(), "a refused order is forgotten");
    }

    @Test
    void afterTheGatewayClosesOrdersAreRefusedAsShuttingDown() throws Exception {
        gateway.close();
        HttpResponse r = send(HttpRequest.POST("/sell?userId=s1&productId=7&quantity=5&price=1"));
        expect(r, 503, "{\"error\":\"shutting down\"}");
        assertEquals("1", header(r, "Retry-After"));
        assertTrue(reached.isEmpty());
    }

    @Test
    void ordersViewReadsItsFillsFromSales() throws Exception {
        expect(send(HttpRequest.GET("/orders/abc")), 400, "{\"error\":\"order id must be a positive integer\"}");
        expect(send(HttpRequest.GET("/orders/0")), 400, "{\"error\":\"order id must be a positive integer\"}");
        expect(send(HttpRequest.GET("/orders/12")), 404, "{\"error\":\"no such order: 12\"}");

        send(HttpRequest.GET("/sell?userId=s1&productId=7&quantity=5&price=10.5"));
        Order sell = reached.get(0);
        HttpResponse open = send(HttpRequest.GET("/orders/" + sell.id));
        expect(open, 200, "{\"id\":" + sell.id + ",\"side\":\"sell\",\"userId\":\"s1\",\"productId\":\"7\",\"quantity\":5,"
                + "\"price\":10.5,\"remaining\":5,\"status\":\"open\",\"fills\":[]}");

        try (Connection c = tdb.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED)"
                    + " VALUES ('b9', 's1', '7', 10.50, 3, 77, " + sell.id + ", 1234)");
        }
        String b = body(send(HttpRequest.GET("/orders/" + sell.id)));
        assertTrue(b.contains("\"remaining\":2"), b);
        assertTrue(b.matches(".*\"fills\":\\[\\{\"saleId\":\\d+,\"buyer\":\"b9\",\"seller\":\"s1\",\"productId\":\"7\",\"price\":10.5,"
                + "\"quantity\":3,\"poId\":77,\"soId\":" + sell.id + ",\"created\":1234}]}"), b);
        // an order this process never saw, known from SALES only
        String unknown = body(send(HttpRequest.GET("/orders/77")));
        assertEquals("{\"id\":77,\"status\":\"unknown\"," + b.substring(b.indexOf("\"fills\":")), unknown);
    }

    @Test
    void statsAndHealth() throws Exception {
        HttpResponse s = send(HttpRequest.GET("/stats"));
        assertEquals(200, s.status().intValue());
        assertTrue(body(s).startsWith("{\"variant\":\"engine-spray\",\"uptimeMs\":"));
        expect(send(HttpRequest.GET("/health")), 200, "{\"status\":\"up\"}");
    }

    @Test
    void healthSays503WhileTheDatabaseIsAway() throws Exception {
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            AsyncDatabase viaProxy = new AsyncDatabase(tdb.config("DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port())),
                    system.dispatcher(), system.scheduler());
            try {
                var routes = new ApiRoutes(gateway, viaProxy).handler(system);
                HttpResponse up = routes.apply(HttpRequest.GET("/health")).toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertEquals(200, up.status().intValue());
                proxy.cut();
                // the answer is cached for 500 ms: the next ones may still say "up"
                Wait.until(() -> routes.apply(HttpRequest.GET("/health")).toCompletableFuture().get(10, TimeUnit.SECONDS)
                        .status().intValue() == 503, "/health says the database is away");
                HttpResponse down = routes.apply(HttpRequest.GET("/health")).toCompletableFuture().get(10, TimeUnit.SECONDS);
                expect(down, 503, "{\"status\":\"down\",\"error\":\"database unreachable\"}");
                HttpResponse view = routes.apply(HttpRequest.GET("/orders/12")).toCompletableFuture().get(10, TimeUnit.SECONDS);
                expect(view, 503, "{\"error\":\"database unreachable\"}");
                assertEquals("1", header(view, "Retry-After"));
            } finally {
                viaProxy.close();
            }
        }
    }

    /**
     * Akka HTTP 10.2 is at its end of life: no route of the service stores uploaded files
     * (CVE-2023-33251; README of java-spray-async, "Akka's end of life").
     */
    @Test
    void noRouteStoresUploadedFiles() throws IOException {
        List<String> directives = List.of("storeUploadedFile", "storeUploadedFiles", "fileUpload", "fileUploadAll",
                "uploadedFile");
        // the sources this build compiled (the Pekko build's are generated from this module's)
        Path main = Path.of(System.getProperty("tradebench.sources", "src/main/java"));
        assertTrue(Files.isDirectory(main), "the module's sources: " + main.toAbsolutePath());
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                for (String d : directives) assertFalse(text.contains(d), f + " uses " + d);
            }
        }
    }
}
