package tradebench.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * Fault injection (docs/contract-details.md): with FAULTS=on, POST /faults/crash-engine
 * makes an engine thread throw. The engine comes back with a fresh market for
 * its partition: its open orders are lost (unknown), the other engines and the
 * stored sales are untouched, and it trades again. Without FAULTS the path is unknown.
 */
class CrashEngineIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");

    @Test
    void aCrashedEngineComesBackWithAFreshMarketForItsPartition() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        ThreadsService service = ThreadsService.start(Main.DESIGN, tdb.config("PORT", "0", "ENGINES", "2", "DELAY_MS", "1",
                "PERSIST", "per-sale", "FAULTS", "on"));
        String base = "http://127.0.0.1:" + service.port();

        assertEquals(202, post(base + "/sell?userId=s1&productId=0&quantity=2&price=10").statusCode());
        assertEquals(202, post(base + "/buy?userId=b1&productId=0&quantity=1").statusCode());
        Wait.until(() -> service.stats().salesPersisted() == 1, "a sale before the crash");
        long lost = id(post(base + "/sell?userId=s2&productId=2&quantity=1&price=99"));   // engine 0
        long kept = id(post(base + "/sell?userId=s3&productId=1&quantity=1&price=99"));   // engine 1
        Wait.until(() -> service.stats().engine(0).openOrders() == 2, "engine 0 holds two open sells");

        HttpResponse<String> crash = post(base + "/faults/crash-engine?engine=0");
        assertEquals(202, crash.statusCode());
        assertEquals("{\"engine\":0,\"status\":\"crashing\"}", crash.body());
        Wait.until(() -> service.engines().engine(0).restarts() == 1, "engine 0 restarted");

        assertTrue(get(base + "/orders/" + lost).body().contains("\"status\":\"unknown\""), "the lost order is unknown");
        assertTrue(get(base + "/orders/" + kept).body().contains("\"status\":\"open\""), "engine 1 kept its order");
        assertEquals(0, service.engines().engine(1).restarts());

        assertEquals(202, post(base + "/sell?userId=s4&productId=0&quantity=1&price=10").statusCode());
        assertEquals(202, post(base + "/buy?userId=b4&productId=0&quantity=1").statusCode());
        Wait.until(() -> service.stats().salesPersisted() == 2, "engine 0 trades again");
        assertEquals(400, post(base + "/faults/crash-engine?engine=2").statusCode(), "only engines 0..1");

        assertEquals("exit variant=java-threads accepted=6 sales=2", service.drain());
        assertEquals(2, tdb.count(""), "the sale before the crash is still stored, the one after it too");
    }

    @Test
    void withoutFaultsTheCrashPathIsUnknown() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        ThreadsService service = ThreadsService.start(Main.DESIGN, tdb.config("PORT", "0", "ENGINES", "1"));
        try {
            assertEquals(404, post("http://127.0.0.1:" + service.port() + "/faults/crash-engine?engine=0").statusCode());
            assertEquals(0, service.engines().engine(0).restarts());
        } finally {
            service.drain();
        }
    }

    private static long id(HttpResponse<String> accepted) {
        assertEquals(202, accepted.statusCode());
        Matcher m = ID.matcher(accepted.body());
        assertTrue(m.find(), accepted.body());
        return Long.parseLong(m.group(1));
    }

    private static HttpResponse<String> post(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

}
