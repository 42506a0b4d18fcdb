package tradebench.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRequest;
import tradebench.model.Order;
import tradebench.model.Side;
import tradebench.testing.TestDatabase;

/**
 * SIGTERM's drain, over HTTP, on platform and virtual threads: orders accepted
 * while the engines sleep a long DELAY_MS are still in the inboxes when the
 * drain starts; the drain joins them, trades, stores every sale, and the exit
 * line's count equals the SALES rows.
 */
class ShutdownDrainIT {
    private static final int PAIRS = 100;

    @ParameterizedTest
    @ValueSource(strings = {"platform", "virtual"})
    void drainJoinsTheInboxesAndStoresEverySale(String threads) throws Exception {
        TestDatabase tdb = TestDatabase.forModule("java-threads");
        tdb.deleteAllSales();
        Config config = tdb.config("PORT", "0", "ENGINES", "4", "DELAY_MS", "10000",
                "PERSIST", "per-sale", "THREADS", threads);
        ThreadsService service = ThreadsService.start(config);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + service.port();
        for (int i = 0; i < PAIRS; i++) {
            // one seller and one buyer per product, each for 1: PAIRS sales, whatever cycles they land in
            assertEquals(202, post(http, base + "/sell?userId=s" + i + "&productId=" + i % 100 + "&quantity=1&price=10.5"));
            assertEquals(202, post(http, base + "/buy?userId=b" + i + "&productId=" + i % 100 + "&quantity=1"));
        }
        long pending = service.stats().engines().stream().mapToLong(e -> e.pendingOrders()).sum();
        assertTrue(pending > 0, "orders wait in the inboxes when the drain starts (pending " + pending + ")");

        long started = System.currentTimeMillis();
        String exit = service.drain();
        long tookMs = System.currentTimeMillis() - started;

        assertEquals("exit variant=java-threads accepted=" + 2 * PAIRS + " sales=" + PAIRS, exit);
        assertEquals(PAIRS, tdb.count(""), "every sale is stored, once");
        assertTrue(tookMs < 5_000, "the drain cut the 10 s sleep short (took " + tookMs + " ms)");
        assertEquals(OrderGateway.SHUTTING_DOWN,
                service.gateway().submit(new OrderRequest(Side.BUY, "late", 1, 1, Order.NO_LIMIT)),
                "after the drain every order is refused");
    }

    private static int post(HttpClient http, String url) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
