package tradebench.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.testing.BlackHole;
import tradebench.testing.TestDatabase;

/**
 * VIEWS=async and VIEWS=resilience4j on java-threads, their read server a black hole: a view is 504
 * at its deadline, a full bulkhead is 503 at once, and a hanging view holds no request thread.
 * (ServiceContractIT holds the read path's behaviours in the default, blocking mode.)
 */
class ViewModesIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<ThreadsService> started = new ArrayList<>();

    @AfterEach
    void drain() {
        for (ThreadsService s : started) s.drain();
    }

    private String start(BlackHole hole, String mode, String... settings) throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        List<String> all = new ArrayList<>(List.of("PORT", "0", "BIND", "127.0.0.1", "VIEWS", mode,
                "READ_DB_HOST", "127.0.0.1", "READ_DB_PORT", Integer.toString(hole.port())));
        all.addAll(List.of(settings));
        ThreadsService service = ThreadsService.start(Main.DESIGN, tdb.config(all.toArray(String[]::new)));
        started.add(service);
        assertTrue(service.describe().contains(" views=" + mode + " read=127.0.0.1:" + hole.port()), service.describe());
        return "http://127.0.0.1:" + service.port();
    }

    @ParameterizedTest
    @ValueSource(strings = {"async", "resilience4j"})
    void aFullBulkheadIs503AtOnceTheRest504(String mode) throws Exception {
        try (BlackHole hole = new BlackHole()) {
            // 2 threads and a queue of 2: four views in the bulkhead in both modes
            String base = start(hole, mode, "READ_POOL", "2", "VIEW_LIMIT", "4", "READ_TIMEOUT_MS", "3000");
            List<CompletableFuture<HttpResponse<String>>> views = new ArrayList<>();
            for (int i = 0; i < 10; i++) views.add(get(base + "/orders/" + (i + 1)));
            int timedOut = 0;
            for (CompletableFuture<HttpResponse<String>> f : views) {
                HttpResponse<String> r = f.join();
                if (r.statusCode() == 503) {
                    assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
                    assertEquals("{\"error\":\"too many order views waiting for the database (VIEW_LIMIT=4)\"}", r.body());
                } else {
                    assertEquals(504, r.statusCode(), r.body());
                    assertEquals("{\"error\":\"the order's fills were not read within 3000 ms\"}", r.body());
                    timedOut++;
                }
            }
            assertEquals(4, timedOut, "the bulkhead's threads and queue");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"async", "resilience4j"})
    void aHangingViewHoldsNoRequestThread(String mode) throws Exception {
        try (BlackHole hole = new BlackHole()) {
            String base = start(hole, mode, "HTTP_THREADS", "2", "VIEW_LIMIT", "100", "READ_TIMEOUT_MS", "3000");
            List<CompletableFuture<HttpResponse<String>>> views = new ArrayList<>();
            for (int i = 0; i < 10; i++) views.add(get(base + "/orders/" + (i + 1)));
            // two request threads, ten views waiting: the orders are answered all the same
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> order = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/buy?userId=b" + i
                                + "&productId=1&quantity=1")).timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(202, order.statusCode(), order.body());
            }
            assertTrue(views.stream().anyMatch(f -> !f.isDone()), "the orders were answered while views waited");
            for (CompletableFuture<HttpResponse<String>> f : views) assertEquals(504, f.join().statusCode());
        }
    }

    private static CompletableFuture<HttpResponse<String>> get(String url) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
