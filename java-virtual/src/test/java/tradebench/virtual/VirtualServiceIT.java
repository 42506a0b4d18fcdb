package tradebench.virtual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;
import tradebench.threads.ThreadsService;

/**
 * java-virtual over HTTP against the real database, behind a slow link: one engine's cycle of 40 sales is
 * stored with its inserts in flight together (the proxy holds several of their answers at once; one
 * after another it would hold one at a time), every sale once, and DB_POOL defaults to 64.
 */
class VirtualServiceIT {
    private static final int PAIRS = 40;
    // long enough that inserts sent together are still held together at the proxy on a busy machine
    private static final long ROUND_TRIP_MS = 100;

    @Test
    void aCyclesSalesAreStoredTogetherBehindASlowDatabase() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            // one engine that sleeps 10 s between cycles: every order waits in its inbox for the drain's cycle
            Config config = tdb.config("PORT", "0", "ENGINES", "1", "DELAY_MS", "10000", "PERSIST", "per-sale",
                    "DB_HOST", "127.0.0.1", "DB_PORT", Integer.toString(proxy.port()));
            ThreadsService service = ThreadsService.start(Main.DESIGN, config);
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + service.port();
            for (int i = 0; i < PAIRS; i++) {
                assertEquals(202, post(http, base + "/sell?userId=s" + i + "&productId=" + i + "&quantity=1&price=10.5"));
                assertEquals(202, post(http, base + "/buy?userId=b" + i + "&productId=" + i + "&quantity=1"));
            }
            proxy.delayAnswers(ROUND_TRIP_MS);
            proxy.resetPeak();
            String exit = service.drain();

            assertEquals("exit variant=java-virtual accepted=" + 2 * PAIRS + " sales=" + PAIRS, exit);
            assertEquals(PAIRS, tdb.count(""), "every sale is stored, once");
            // more than one at once is the claim: how many depends on the limit, which the link that just
            // became slow holds near its floor for a few seconds (InFlightLimit)
            assertTrue(proxy.peakHeldAnswers() > 1, "the cycle's " + PAIRS + " inserts were in flight together, not"
                    + " one after another: " + proxy.peakHeldAnswers() + " round trips at once at most");
        }
    }

    @Test
    void theInsertsInFlightDefaultToSixtyFourAndFollowDbPool() {
        assertEquals(64, Main.config(Map.of()).dbPool());
        assertEquals(64, Main.config(Map.of("DB_POOL", " ")).dbPool());
        assertEquals(12, Main.config(Map.of("DB_POOL", "12")).dbPool());
    }

    private static int post(HttpClient http, String url) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
