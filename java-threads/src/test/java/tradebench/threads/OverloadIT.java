package tradebench.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * Overload end to end over HTTP: a full inbox answers 503 "overloaded" with
 * Retry-After (never a silent drop). The database outage is ServiceContract's
 * (ServiceContractIT).
 */
class OverloadIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void aFullInboxAnswers503WithRetryAfter() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        // one engine that sleeps a minute after its first cycle: what arrives stays in the inbox
        Config config = tdb.config("PORT", "0", "ENGINES", "1", "DELAY_MS", "60000",
                "INBOX_LIMIT", "2");
        ThreadsService service = ThreadsService.start(Main.DESIGN, config);
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
