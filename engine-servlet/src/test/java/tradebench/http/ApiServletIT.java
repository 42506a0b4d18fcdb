package tradebench.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.Inbox;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.testing.BadInput;
import tradebench.testing.TestDatabase;
import tradebench.wire.Answers;

/**
 * The shared servlet API over a real Tomcat socket. Each test starts its own
 * server in front of a one-engine inbox of 3 that no engine drains.
 */
class ApiServletIT {
    static TestDatabase tdb;
    static Database db;
    static HttpClient http = HttpClient.newHttpClient();
    TomcatServer server;
    ServiceStats stats;
    String base;

    @BeforeAll
    static void database() {
        tdb = TestDatabase.ofThisModule();
        db = new Database(tdb.config());
    }

    @AfterAll
    static void close() {
        http.shutdownNow(); // no idle keep-alive connection for Tomcat to wait out
        db.close();
    }

    /** A server whose engine door is {@code door}. */
    void start(OrderGateway.EngineDoor door, String... settings) throws Exception {
        String[] all = new String[settings.length + 6];
        System.arraycopy(new String[] {"PORT", "0", "ENGINES", "1", "BIND", "127.0.0.1"}, 0, all, 0, 6);
        System.arraycopy(settings, 0, all, 6, settings.length);
        Config c = tdb.config(all);
        stats = new ServiceStats("test", 1);
        OrderGateway gw = new OrderGateway(c, new IdSource(0), new OrderRegistry(), stats, door);
        server = TomcatServer.start(c, new ApiServlet(gw, db));
        base = "http://127.0.0.1:" + server.port();
    }

    void startWithInboxOf3() throws Exception {
        Inbox inbox = new Inbox(3);
        start((e, o) -> inbox.offer(o));
    }

    @AfterEach
    void stop() {
        if (server != null) server.stop();
    }

    HttpResponse<String> send(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static long idOf(HttpResponse<String> accepted) {
        return Long.parseLong(accepted.body().replaceAll("\\D+", " ").trim().split(" ")[0]);
    }

    @Test
    void anAcceptedOrderIs202JsonWithItsIdAndSide() throws Exception {
        startWithInboxOf3();
        var sell = send("POST", "/sell?userId=s1&productId=7&quantity=5&price=10.50");
        assertEquals(202, sell.statusCode());
        assertTrue(sell.body().matches("\\{\"id\":\\d+,\"side\":\"sell\",\"status\":\"accepted\"}"), sell.body());
        assertEquals("application/json", sell.headers().firstValue("content-type").orElse("").split(";")[0]);
        var buy = send("GET", "/buy?userId=b1&productId=7&quantity=5");
        assertEquals(202, buy.statusCode());
        assertTrue(idOf(buy) > idOf(sell), "ids increase with acceptance");
        assertTrue(Answers.stats(stats).contains("\"accepted\":2"), Answers.stats(stats));
    }

    @Test
    void badInputIs400WithTheRuleAndIsCountedAsRejected() throws Exception {
        java.util.List<tradebench.model.Order> reached = new java.util.ArrayList<>();
        start((e, o) -> reached.add(o));
        for (BadInput.Case c : BadInput.REFUSED) {
            var bad = send(c.method(), c.uri());
            assertEquals(400, bad.statusCode(), c.uri());
            assertEquals(c.body(), bad.body(), c.uri());
        }
        assertTrue(reached.isEmpty(), "no bad order reached the engine");
        String counters = Answers.stats(stats);
        assertTrue(counters.contains("\"accepted\":0") && counters.contains("\"rejected\":" + BadInput.REFUSED.size()), counters);
    }

    /**
     * A plain query string is split by the servlet itself, any other by Tomcat: the same order
     * written both ways (percent-escapes make Tomcat parse it) must reach the engine the same,
     * and bad ones be refused with the same message.
     */
    @Test
    void aPlainQueryAndAnEscapedOneAreTheSameOrder() throws Exception {
        java.util.List<tradebench.model.Order> reached = new java.util.ArrayList<>();
        start((e, o) -> reached.add(o));
        for (String[] p : BadInput.SAME_ORDER_PLAIN_AND_ESCAPED) {
            var plain = send("POST", p[0]);
            var escaped = send("POST", p[1]);
            assertEquals(202, plain.statusCode(), p[0] + " " + plain.body());
            assertEquals(202, escaped.statusCode(), p[1] + " " + escaped.body());
        }
        int accepted = 2 * BadInput.SAME_ORDER_PLAIN_AND_ESCAPED.size();
        assertEquals(accepted, reached.size());
        for (int i = 0; i < accepted; i += 2) {
            tradebench.model.Order a = reached.get(i), b = reached.get(i + 1);
            assertEquals(java.util.List.of(a.side, a.userId, a.productId, a.quantity, a.priceCents),
                    java.util.List.of(b.side, b.userId, b.productId, b.quantity, b.priceCents));
        }
        for (String[] p : BadInput.REFUSED_PLAIN_AND_ESCAPED) {
            var plain = send("GET", p[0]);
            var escaped = send("GET", p[1]);
            assertEquals(400, plain.statusCode(), p[0]);
            assertEquals(escaped.body(), plain.body(), p[0]);
        }
        assertEquals(accepted, reached.size(), "no bad order reached the engine");
    }

    @Test
    void anUnknownPathIs404AndAWrongMethod405WithAllow() throws Exception {
        startWithInboxOf3();
        assertEquals(404, send("GET", "/nothing").statusCode());
        var wrong = send("PUT", "/buy?userId=b1&productId=1&quantity=5");
        assertEquals(405, wrong.statusCode());
        assertEquals("GET, POST", wrong.headers().firstValue("allow").orElse(""));
        assertEquals("GET", send("DELETE", "/stats").headers().firstValue("allow").orElse(""));
    }

    @Test
    void ordersViewIs400ForABadId404ForAnUnknownOneAndShowsAnOpenOrder() throws Exception {
        startWithInboxOf3();
        assertEquals(400, send("GET", "/orders/abc").statusCode());
        assertEquals(404, send("GET", "/orders/999999999999").statusCode());
        long id = idOf(send("POST", "/sell?userId=s1&productId=7&quantity=5&price=10.50"));
        var order = send("GET", "/orders/" + id);
        assertEquals(200, order.statusCode());
        assertEquals("{\"id\":" + id + ",\"side\":\"sell\",\"userId\":\"s1\",\"productId\":\"7\",\"quantity\":5,"
                + "\"price\":10.5,\"remaining\":5,\"status\":\"open\",\"fills\":[]}", order.body());
    }

    @Test
    void aFullInboxIs503OverloadedWithRetryAfter() throws Exception {
        startWithInboxOf3();
        for (int i = 0; i < 3; i++) assertEquals(202, send("POST", "/buy?userId=b2&productId=3&quantity=1").statusCode());
        var full = send("POST", "/buy?userId=b3&productId=3&quantity=1");
        assertEquals(503, full.statusCode());
        assertEquals("1", full.headers().firstValue("retry-after").orElse(""));
        assertEquals("{\"error\":\"overloaded\"}", full.body());
        assertTrue(Answers.stats(stats).contains("\"accepted\":3") && Answers.stats(stats).contains("\"overloaded\":1"), Answers.stats(stats));
    }

    @Test
    void healthIsUpWithTheDatabase() throws Exception {
        startWithInboxOf3();
        var health = send("GET", "/health");
        assertEquals(200, health.statusCode());
        assertEquals("{\"status\":\"up\"}", health.body());
    }

    @Test
    void aMalformedRequestGetsAJsonErrorNotAnHtmlPage() throws Exception {
        startWithInboxOf3();
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write("GET /buy?userId=%zz%&productId=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(answer.contains("{\"error\":"), answer);
            assertFalse(answer.contains("<html"), answer);
        }
    }

    /** THREADS is read case-insensitively for the request threads too (ThreadKind), as for java-threads' engines. */
    @Test
    void threadsVirtualInAnyCaseGivesVirtualRequestThreads() throws Exception {
        AtomicBoolean virtual = new AtomicBoolean();
        start((e, o) -> {
            virtual.set(Thread.currentThread().isVirtual()); // the door is called on the request's thread
            return true;
        }, "THREADS", "Virtual");
        assertEquals(202, send("POST", "/buy?userId=b1&productId=1&quantity=1").statusCode());
        assertTrue(virtual.get(), "THREADS=Virtual: the request ran on a virtual thread");
        stop();
        start((e, o) -> {
            virtual.set(Thread.currentThread().isVirtual());
            return true;
        });
        assertEquals(202, send("POST", "/buy?userId=b1&productId=1&quantity=1").statusCode());
        assertFalse(virtual.get(), "by default, platform request threads");
    }
}
