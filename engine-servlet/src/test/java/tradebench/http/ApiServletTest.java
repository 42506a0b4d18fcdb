package tradebench.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.Inbox;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.testing.TestDatabase;

/** The shared servlet API over a real Tomcat socket, with a one-engine inbox of 3 and no engine draining it. */
class ApiServletTest {
    static TomcatServer server;
    static Database db;
    static Inbox inbox = new Inbox(3);
    static HttpClient http = HttpClient.newHttpClient();
    static String base;

    @BeforeAll
    static void start() throws Exception {
        TestDatabase tdb = TestDatabase.forModule("engine-model");
        Config c = tdb.config("PORT", "0", "ENGINES", "1", "BIND", "127.0.0.1");
        db = new Database(c);
        ServiceStats stats = new ServiceStats("test", 1);
        OrderGateway gw = new OrderGateway(c, new IdSource(0), new OrderRegistry(), stats, (e, o) -> inbox.offer(o));
        server = TomcatServer.start(c, new ApiServlet(gw, db));
        base = "http://127.0.0.1:" + server.port();
    }

    @AfterAll
    static void stop() {
        http.shutdownNow(); // no idle keep-alive connection for Tomcat to wait out
        server.stop();
        db.close();
    }

    static HttpResponse<String> send(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersEveryCaseOfTheContract() throws Exception {
        List<Order> drained = new ArrayList<>();
        inbox.drainTo(drained);
        var ok = send("POST", "/sell?userId=s1&productId=7&quantity=5&price=10.50");
        assertEquals(202, ok.statusCode());
        assertTrue(ok.body().matches("\\{\"id\":\\d+,\"side\":\"sell\",\"status\":\"accepted\"}"), ok.body());
        assertEquals("application/json", ok.headers().firstValue("content-type").orElse("").split(";")[0]);
        assertEquals(202, send("GET", "/buy?userId=b1&productId=7&quantity=5").statusCode());

        var bad = send("POST", "/buy?userId=b1&productId=100&quantity=5");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().startsWith("{\"error\":\"productId"), bad.body());
        assertEquals(404, send("GET", "/nothing").statusCode());
        var wrong = send("PUT", "/buy?userId=b1&productId=1&quantity=5");
        assertEquals(405, wrong.statusCode());
        assertEquals("GET, POST", wrong.headers().firstValue("allow").orElse(""));
        assertEquals(400, send("GET", "/orders/abc").statusCode());
        assertEquals(404, send("GET", "/orders/999999999999").statusCode());
        long id = Long.parseLong(ok.body().replaceAll("\\D+", " ").trim().split(" ")[0]);
        var order = send("GET", "/orders/" + id);
        assertEquals(200, order.statusCode());
        assertTrue(order.body().contains("\"status\":\"open\"") && order.body().contains("\"fills\":[]"), order.body());

        assertEquals(202, send("POST", "/buy?userId=b2&productId=3&quantity=1").statusCode());
        var full = send("POST", "/buy?userId=b3&productId=3&quantity=1");
        assertEquals(503, full.statusCode());
        assertEquals("1", full.headers().firstValue("retry-after").orElse(""));
        assertEquals("{\"error\":\"overloaded\"}", full.body());

        var stats = send("GET", "/stats");
        assertTrue(stats.body().contains("\"accepted\":3") && stats.body().contains("\"rejected\":1")
                && stats.body().contains("\"overloaded\":1"), stats.body());
        assertEquals("{\"status\":\"up\"}", send("GET", "/health").body());
    }

    @Test
    void aMalformedRequestGetsAJsonErrorNotAnHtmlPage() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write("GET /buy?userId=%zz%&productId=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
            assertTrue(answer.contains("{\"error\":"), answer);
            assertTrue(!answer.contains("<html"), answer);
        }
    }
}
