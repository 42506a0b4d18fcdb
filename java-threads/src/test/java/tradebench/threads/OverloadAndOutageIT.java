package tradebench.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * Overload and a database outage, end to end over HTTP: a full inbox answers
 * 503 "overloaded" with Retry-After (never a silent drop); while the database
 * is away the engine holds its sale and stops trading (its inbox fills, new
 * orders get 503, /health says down); once it is back the sale is stored once.
 */
class OverloadAndOutageIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void aFullInboxAnswers503WithRetryAfter() throws Exception {
        TestDatabase tdb = TestDatabase.forModule("java-threads");
        tdb.deleteAllSales();
        // one engine that sleeps a minute after its first cycle: what arrives stays in the inbox
        Config config = tdb.config("PORT", "0", "ENGINES", "1", "DELAY_MS", "60000",
                "INBOX_LIMIT", "2");
        ThreadsService service = ThreadsService.start(config);
        Wait.until(() -> service.stats().engine(0).cycles() >= 1, "the first cycle ran");
        String base = "http://127.0.0.1:" + service.port();

        assertEquals(202, send(base + "/buy?userId=b1&productId=3&quantity=1").statusCode());
        assertEquals(202, send(base + "/buy?userId=b2&productId=3&quantity=1").statusCode());
        HttpResponse<String> full = send(base + "/buy?userId=b3&productId=3&quantity=1");
        assertEquals(503, full.statusCode());
        assertEquals("1", full.headers().firstValue("Retry-After").orElse(null));
        assertEquals("{\"error\":\"overloaded\"}", full.body());
        String stats = get(base + "/stats").body();
        assertTrue(stats.contains("\"overloaded\":1,") && stats.contains("\"pendingOrders\":2,"), stats);

        assertEquals("exit variant=java-threads accepted=2 sales=0", service.drain());
    }

    @Test
    void anEngineWaitsOutADatabaseOutageAndStoresItsSaleOnce() throws Exception {
        TestDatabase tdb = TestDatabase.forModule("java-threads");
        tdb.deleteAllSales();
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            Config config = tdb.config("PORT", "0", "DB_PORT", "" + proxy.port(),
                    "ENGINES", "1", "DELAY_MS", "1", "INBOX_LIMIT", "3", "PERSIST", "per-sale");
            ThreadsService service = ThreadsService.start(config);
            String base = "http://127.0.0.1:" + service.port();

            proxy.cut();
            assertEquals(202, send(base + "/sell?userId=s1&productId=5&quantity=2&price=12.5").statusCode());
            assertEquals(202, send(base + "/buy?userId=b1&productId=5&quantity=2").statusCode());
            Wait.until(() -> service.stats().engine(0).persistenceFailures() > 0, "the insert failed");
            Wait.until(() -> get(base + "/health").statusCode() == 503, "/health says the database is down");

            // the engine is stuck storing: its inbox (3) fills, then orders are refused
            for (int i = 0; i < 3; i++) {
                assertEquals(202, send(base + "/buy?userId=w" + i + "&productId=7&quantity=1").statusCode());
            }
            assertEquals(503, send(base + "/buy?userId=w9&productId=7&quantity=1").statusCode());
            assertEquals(0, service.stats().salesPersisted(), "nothing counts as stored while the database is away");

            proxy.restore();
            Wait.until(() -> service.stats().salesPersisted() == 1, "the sale is stored once the database is back");
            Wait.until(() -> get(base + "/health").statusCode() == 200, "/health says up again");
            assertEquals("exit variant=java-threads accepted=5 sales=1", service.drain());
            assertEquals(1, tdb.count(""), "stored once, not once per try");
            assertEquals(1, tdb.count("BUYER_NAME = 'b1' AND SELLER_NAME = 's1' AND QUANTITY = 2 AND PRICE = 12.50"));
        }
    }

    private static HttpResponse<String> send(String url) {
        return call(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    private static HttpResponse<String> get(String url) {
        return call(HttpRequest.newBuilder(URI.create(url)).GET().build());
    }

    private static HttpResponse<String> call(HttpRequest req) {
        try {
            return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
