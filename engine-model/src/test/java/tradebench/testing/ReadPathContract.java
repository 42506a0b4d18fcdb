package tradebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;

/**
 * The order view's read path (contract section 8, "The order view's read path") as every Java
 * variant shows it over HTTP: a view whose read server accepts the connection and never answers
 * is answered 504 within READ_TIMEOUT_MS; orders are answered while views hang; views beyond
 * VIEW_LIMIT are refused at once with 503 and Retry-After; bad ids take no slot; a read server
 * that refuses is 503 "database unreachable", and the views read through READ_DB_PORT alone.
 * {@link ServiceContract} runs it: a variant only says how to start itself.
 */
public abstract class ReadPathContract {
    private static final int TIMEOUT_MS = 500;
    /** Long enough for every request of a test to reach the service while the first views still hang. */
    private static final int HANGING_MS = 3_000;
    /** What a crowded 2-core machine may add to a view's deadline before its 504 is on the wire. */
    private static final long MARGIN_MS = 5_000;

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Starts the variant on its emptied test database with these settings added; returns its port. */
    protected abstract int startService(String... settings) throws Exception;

    /** The test database the variant was started on (its direct DB_HOST and DB_PORT). */
    protected abstract Config testDatabaseConfig() throws Exception;

    @Test
    void aViewWhoseReadNeverComesBackIsAnswered504WithinItsTimeout() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            String base = startReadingFrom(hole.port(), "READ_TIMEOUT_MS", Integer.toString(TIMEOUT_MS));
            long started = System.nanoTime();
            HttpResponse<String> view = get(base + "/orders/1");
            long tookMs = (System.nanoTime() - started) / 1_000_000;

            assertEquals(504, view.statusCode(), view.body());
            assertEquals("{\"error\":\"the order's fills were not read within " + TIMEOUT_MS + " ms\"}", view.body());
            assertTrue(tookMs < TIMEOUT_MS + MARGIN_MS, "answered in " + tookMs + " ms");
            assertEquals(504, get(base + "/orders/2").statusCode(), "the next view too: the read path is still away");
        }
    }

    @Test
    void ordersAreAnsweredWhileViewsHang() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            int views = 8;
            String base = startReadingFrom(hole.port(), "READ_TIMEOUT_MS", Integer.toString(HANGING_MS),
                    "VIEW_LIMIT", Integer.toString(views));
            List<CompletableFuture<HttpResponse<String>>> hanging = new ArrayList<>();
            for (int i = 0; i < views; i++) hanging.add(getAsync(base + "/orders/" + (i + 1)));

            for (int i = 0; i < 10; i++) {
                assertEquals(202, post(base + "/buy?userId=b" + i + "&productId=" + i + "&quantity=1").statusCode());
            }
            assertEquals(200, get(base + "/health").statusCode(), "the writers' server is up");
            long stillHanging = hanging.stream().filter(f -> !f.isDone()).count();
            assertTrue(stillHanging > 0, "the orders were answered while views waited for their reads");

            for (CompletableFuture<HttpResponse<String>> f : hanging) assertEquals(504, f.join().statusCode());
        }
    }

    @Test
    void viewsBeyondTheLimitAreRefusedAtOnceWithRetryAfter() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            int limit = 4;
            int views = 20;
            String base = startReadingFrom(hole.port(), "READ_TIMEOUT_MS", Integer.toString(HANGING_MS),
                    "VIEW_LIMIT", Integer.toString(limit));
            List<CompletableFuture<HttpResponse<String>>> flood = new ArrayList<>();
            for (int i = 0; i < views; i++) flood.add(getAsync(base + "/orders/" + (i + 1)));

            int timedOut = 0;
            int refused = 0;
            for (CompletableFuture<HttpResponse<String>> f : flood) {
                HttpResponse<String> r = f.join();
                if (r.statusCode() == 503) {
                    refused++;
                    assertEquals("1", r.headers().firstValue("Retry-After").orElse(null), "a 503 says when to retry");
                    assertEquals("{\"error\":\"too many order views waiting for the database (VIEW_LIMIT=" + limit
                            + ")\"}", r.body());
                } else {
                    assertEquals(504, r.statusCode(), r.body());
                    timedOut++;
                }
            }
            assertEquals(limit, timedOut, "as many views waited for their reads as the limit lets in");
            assertEquals(views - limit, refused);
        }
    }

    @Test
    void badIdsAreAnsweredWithoutASlot() throws Exception {
        try (BlackHole hole = new BlackHole()) {
            String base = startReadingFrom(hole.port(), "READ_TIMEOUT_MS", Integer.toString(HANGING_MS),
                    "VIEW_LIMIT", "1");
            CompletableFuture<HttpResponse<String>> first = getAsync(base + "/orders/1");
            CompletableFuture<HttpResponse<String>> second = getAsync(base + "/orders/2");
            // one of the two holds the only slot, the other is refused at once
            CompletableFuture.anyOf(first, second).join();
            boolean firstRefused = first.isDone() && first.join().statusCode() == 503;
            CompletableFuture<HttpResponse<String>> holder = firstRefused ? second : first;
            HttpResponse<String> refused = (firstRefused ? first : second).join();
            assertEquals(503, refused.statusCode(), refused.body());

            for (String bad : List.of("abc", "0", "-1", "1234567890123456789", "")) {
                HttpResponse<String> r = get(base + "/orders/" + bad);
                assertEquals(400, r.statusCode(), "/orders/" + bad + ": " + r.body());
                assertEquals("{\"error\":\"order id must be a positive integer\"}", r.body());
            }
            HttpResponse<String> wrongMethod = post(base + "/orders/1");
            assertEquals(405, wrongMethod.statusCode(), wrongMethod.body());
            assertFalse(holder.isDone(), "the slot was still held while the bad ids were answered");
            assertEquals(504, holder.join().statusCode(), holder.join().body());
            // the slot comes back: the bad ids took none
            Wait.until(() -> get(base + "/orders/3").statusCode() == 504, "a view is let in again");
        }
    }

    @Test
    void viewsReadThroughTheirOwnPathAndARefusingServerIs503() throws Exception {
        Config direct = testDatabaseConfig();
        try (TcpProxy reads = new TcpProxy(direct.dbHost(), direct.dbPort())) {
            String base = startReadingFrom(reads.port(), "READ_TIMEOUT_MS", Integer.toString(TIMEOUT_MS),
                    "ENGINES", "1", "DELAY_MS", "1");
            assertEquals(202, post(base + "/sell?userId=s1&productId=3&quantity=2&price=10").statusCode());
            long buyId = idOf(post(base + "/buy?userId=b1&productId=3&quantity=2"));
            String view = base + "/orders/" + buyId;
            Wait.until(() -> get(view).body().contains("\"status\":\"filled\""), "the buy is filled and shown");
            HttpResponse<String> filled = get(view);
            assertEquals(200, filled.statusCode());
            assertTrue(filled.body().contains("\"fills\":[{\"saleId\":"), filled.body());

            reads.cut();
            HttpResponse<String> unreachable = get(view);
            assertEquals(503, unreachable.statusCode(), unreachable.body());
            assertEquals("{\"error\":\"database unreachable\"}", unreachable.body());
            assertTrue(unreachable.headers().firstValue("Retry-After").isPresent(), "a 503 says when to retry");
            assertEquals(202, post(base + "/buy?userId=b2&productId=4&quantity=1").statusCode(),
                    "orders do not read through the view's path");
            assertEquals(200, get(base + "/health").statusCode(), "the writers' server is up");

            reads.restore();
            Wait.until(() -> get(view).statusCode() == 200, "views read again once the read server is back");
        }
    }

    private String startReadingFrom(int readPort, String... settings) throws Exception {
        List<String> all = new ArrayList<>(List.of("READ_DB_HOST", "127.0.0.1", "READ_DB_PORT", Integer.toString(readPort)));
        all.addAll(List.of(settings));
        return "http://127.0.0.1:" + startService(all.toArray(String[]::new));
    }

    private static long idOf(HttpResponse<String> accepted) {
        assertEquals(202, accepted.statusCode(), accepted.body());
        Matcher m = Pattern.compile("\"id\":(\\d+)").matcher(accepted.body());
        assertTrue(m.find(), accepted.body());
        return Long.parseLong(m.group(1));
    }

    private static HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(request(url).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> getAsync(String url) {
        return HTTP.sendAsync(request(url).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url) throws Exception {
        return HTTP.send(request(url).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
