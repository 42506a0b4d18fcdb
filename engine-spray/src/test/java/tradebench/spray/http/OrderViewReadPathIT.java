package tradebench.spray.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.japi.function.Function;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.spray.db.AsyncDatabase;
import tradebench.testing.BlackHole;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * The order view's read path (contract section 8) as the routes answer it, on the real test
 * database for the writers and, for the views, a read server that never answers (a black hole),
 * answers late (a proxy that holds its answers) or refuses (a proxy cut off).
 */
class OrderViewReadPathIT {
    /** What a crowded 2-core machine may add to a deadline before its 504 is made. */
    private static final long MARGIN_MS = 5_000;

    private static TestDatabase tdb;
    private static ActorSystem system;

    private AsyncDatabase db;
    private Function<HttpRequest, CompletionStage<HttpResponse>> api;

    @BeforeAll
    static void start() throws Exception {
        tdb = TestDatabase.ofThisModule();
        system = ActorSystem.create("read-path-test");
    }

    @AfterAll
    static void stop() {
        if (system != null) system.terminate();
    }

    @AfterEach
    void close() {
        if (db != null) db.close();
        db = null;
    }

    /** The routes with the writers on the test database and the views reading from 127.0.0.1:{@code readPort}. */
    private void routes(int readPort, String... settings) throws Exception {
        tdb.deleteAllSales();
        List<String> all = new ArrayList<>(List.of("PRODUCTS", "100", "ENGINES", "4",
                "READ_DB_HOST", "127.0.0.1", "READ_DB_PORT", Integer.toString(readPort)));
        all.addAll(List.of(settings));
        Config c = tdb.config(all.toArray(String[]::new));
        db = new AsyncDatabase(c, system.dispatcher(), system.scheduler());
        OrderGateway gateway = new OrderGateway(c, new IdSource(0), new OrderRegistry(), new ServiceStats("engine-spray", 4),
                (engine, order) -> true);
        api = new ApiRoutes(gateway, db).handler(system);
    }

    private CompletableFuture<HttpResponse> sendAsync(HttpRequest r) throws Exception {
        return api.apply(r).toCompletableFuture();
    }

    private HttpResponse send(HttpRequest r) throws Exception {
        return sendAsync(r).get(30, TimeUnit.SECONDS);
    }

    private static HttpResponse answer(CompletableFuture<HttpResponse> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static String body(HttpResponse r) throws Exception {
        return r.entity().toStrict(5000, akka.stream.Materializer.matFromSystem(system))
                .toCompletableFuture().get(5, TimeUnit.SECONDS).getData().utf8String();
    }

    private static String header(HttpResponse r, String name) {
        return r.getHeader(name).map(HttpHeader::value).orElse(null);
    }

    private static void insertSale(long poId, long soId, int quantity) throws Exception {
        try (Connection c = tdb.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED)"
                    + " VALUES ('b', 's', '7', 10.50, " + quantity + ", " + poId + ", " + soId + ", 1234)");
        }
    }

    @Test
    void aViewOnAReadServerThatNeverAnswersIs504WithinItsTimeout() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            routes(hole.port(), "READ_TIMEOUT_MS", "500");
            long started = System.nanoTime();
            HttpResponse r = send(HttpRequest.GET("/orders/12"));
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(504, r.status().intValue());
            assertEquals("{\"error\":\"the order's fills were not read within 500 ms\"}", body(r));
            assertTrue(tookMs >= 450 && tookMs < 500 + MARGIN_MS, "answered after " + tookMs + " ms");
            assertTrue(hole.connections() >= 1, "the view did try the read server");
            assertEquals(0, db.reads().viewsInPath(), "the view left the read path");
        }
    }

    /**
     * A read that answers after its deadline: 504, and its connection is closed rather than lent
     * to the next view (READ_POOL=1: the next view could only have had that one), which reads
     * its own order's fills.
     */
    @Test
    void aLateAnswerIsNeverTheNextViewsAnswer() throws Exception {
        Config direct = tdb.config();
        try (TcpProxy reads = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            routes(reads.port(), "READ_TIMEOUT_MS", "1000", "READ_POOL", "1");
            insertSale(101, 201, 3);
            insertSale(102, 202, 4);
            assertTrue(body(send(HttpRequest.GET("/orders/101"))).contains("\"quantity\":3,\"poId\":101"),
                    "the read connection is open and answers");

            reads.delayAnswers(4_000);
            HttpResponse late = send(HttpRequest.GET("/orders/101"));
            assertEquals(504, late.status().intValue(), () -> "body " + late);
            reads.delayAnswers(0);
            HttpResponse next = send(HttpRequest.GET("/orders/102"));
            assertEquals(200, next.status().intValue());
            String b = body(next);
            assertTrue(b.startsWith("{\"id\":102,\"status\":\"unknown\",\"fills\":[{"), b);
            assertTrue(b.contains("\"quantity\":4,\"poId\":102,\"soId\":202"), b);
            assertFalse(b.contains("\"poId\":101"), "the late answer went nowhere: " + b);
        }
    }

    @Test
    void viewsBeyondTheLimitAre503AtOnceWhileOrdersAre202AndBadIdsTakeNoSlot() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            routes(hole.port(), "READ_TIMEOUT_MS", "3000", "VIEW_LIMIT", "2");
            List<CompletableFuture<HttpResponse>> hanging = List.of(sendAsync(HttpRequest.GET("/orders/1")),
                    sendAsync(HttpRequest.GET("/orders/2")));
            Wait.until(() -> db.reads().viewsInPath() == 2, "two views wait for their reads");

            HttpResponse refused = send(HttpRequest.GET("/orders/3"));
            assertEquals(503, refused.status().intValue());
            assertEquals("1", header(refused, "Retry-After"));
            assertEquals("{\"error\":\"too many order views waiting for the database (VIEW_LIMIT=2)\"}", body(refused));
            HttpResponse bad = send(HttpRequest.GET("/orders/x1"));
            assertEquals(400, bad.status().intValue());
            assertEquals("{\"error\":\"order id must be a positive integer\"}", body(bad));
            for (int i = 0; i < 5; i++) {
                assertEquals(202, send(HttpRequest.POST("/buy?userId=b" + i + "&productId=" + i + "&quantity=1"))
                        .status().intValue(), "orders do not wait for the views");
            }
            assertEquals(2, db.reads().viewsInPath(), "the refused view and the bad id took no slot");
            assertTrue(hanging.stream().noneMatch(CompletableFuture::isDone), "the two views still hang");

            for (CompletableFuture<HttpResponse> f : hanging) assertEquals(504, answer(f).status().intValue());
            assertEquals(0, db.reads().viewsInPath(), "each view left the read path once");
            assertEquals(504, send(HttpRequest.GET("/orders/4")).status().intValue(), "a view is let in again");
        }
    }

    @Test
    void withoutALimitNoViewIsRefused() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            routes(hole.port(), "READ_TIMEOUT_MS", "500", "VIEW_LIMIT", "0", "READ_POOL", "2");
            List<CompletableFuture<HttpResponse>> views = new ArrayList<>();
            for (int i = 1; i <= 30; i++) views.add(sendAsync(HttpRequest.GET("/orders/" + i)));
            for (CompletableFuture<HttpResponse> f : views) assertEquals(504, answer(f).status().intValue());
            assertEquals(0, db.reads().viewsInPath());
        }
    }

    /** A healthy read path answers 200 with the fills; cut off, 503 with Retry-After, and the writers' server stays up. */
    @Test
    void viewsReadThroughTheirOwnServer() throws Exception {
        Config direct = tdb.config();
        try (TcpProxy reads = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            routes(reads.port(), "READ_TIMEOUT_MS", "2000");
            insertSale(77, 88, 5);
            HttpResponse ok = send(HttpRequest.GET("/orders/88"));
            assertEquals(200, ok.status().intValue());
            String b = body(ok);
            assertTrue(b.matches("\\{\"id\":88,\"status\":\"unknown\",\"fills\":\\[\\{\"saleId\":\\d+,\"buyer\":\"b\","
                    + "\"seller\":\"s\",\"productId\":\"7\",\"price\":10.5,\"quantity\":5,\"poId\":77,\"soId\":88,"
                    + "\"created\":1234}]}"), b);

            reads.cut();
            HttpResponse away = send(HttpRequest.GET("/orders/88"));
            assertEquals(503, away.status().intValue());
            assertEquals("{\"error\":\"database unreachable\"}", body(away));
            assertEquals("1", header(away, "Retry-After"));
            assertEquals(200, send(HttpRequest.GET("/health")).status().intValue(), "the writers' server is up");

            reads.restore();
            Wait.until(() -> send(HttpRequest.GET("/orders/88")).status().intValue() == 200, "views read again");
        }
    }
}
