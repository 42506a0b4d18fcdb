package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.load.LoadResult;
import tradebench.loadclient.load.LoadRun;

/** {@code load} against an HTTP server inside the test: what it sends, what it counts, what it measures. */
class LoadRunTest {

    /** Answers each request with {@code status.applyAsInt(exchange)}, counting answers by status. */
    static final class CountingServer implements AutoCloseable {
        final HttpServer server;
        final Map<Integer, AtomicLong> answered = new ConcurrentHashMap<>();
        final List<String> requests = new CopyOnWriteArrayList<>();

        CountingServer(ToIntFunction<HttpExchange> status) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
            server.createContext("/", ex -> {
                try (ex) {
                    requests.add(ex.getRequestMethod() + " " + ex.getRequestURI());
                    int s = status.applyAsInt(ex);
                    byte[] body = (s == 202 ? "{\"id\":1,\"side\":\"buy\",\"status\":\"accepted\"}" : "{\"error\":\"x\"}")
                            .getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "application/json");
                    ex.sendResponseHeaders(s, body.length);
                    ex.getResponseBody().write(body);
                    answered.computeIfAbsent(s, k -> new AtomicLong()).incrementAndGet();
                }
            });
            server.setExecutor(Executors.newCachedThreadPool());
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        long count(int status) {
            AtomicLong n = answered.get(status);
            return n == null ? 0 : n.get();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private static final Pattern QUANTITY = Pattern.compile("quantity=(\\d+)");

    static int quantity(HttpExchange ex) {
        Matcher m = QUANTITY.matcher(ex.getRequestURI().getRawQuery());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    private LoadResult load(String... args) throws Exception {
        return new LoadRun(LoadOptions.parse(args), new PrintStream(output, true, StandardCharsets.UTF_8)).run();
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void closedLoopCountsEveryAnswerByStatus(String client) throws Exception {
        // The answer depends on the order: quantity 10 -> 503, 9 -> 400, 8 -> 500, else 202.
        // A crowded machine sends few requests in a second: the window grows (1, 3, 9 s) until the
        // run has sent enough for every status of the mix to be likely, rather than failing slow.
        for (int seconds = 1; ; seconds *= 3) {
            try (CountingServer server = new CountingServer(ex -> switch (quantity(ex)) {
                case 10 -> 503;
                case 9 -> 400;
                case 8 -> 500;
                default -> 202;
            })) {
                LoadResult r = load("--url", server.url(), "--concurrency", "4", "--wait", "1", "--duration", "" + seconds,
                        "--warmup", "0", "--products", "5", "--users", "3", "--client", client);
                long sent = server.requests.size();
                if (sent <= 50 && seconds < 9) continue;
                assertCountedByStatus(server, r);
                return;
            }
        }
    }

    private static void assertCountedByStatus(CountingServer server, LoadResult r) {
        long sent = server.requests.size();
        assertTrue(sent > 0 && server.count(202) > 0, "requests went out: " + sent);
        assertEquals(sent, r.requests(), "with no warm-up, every request is in the window");
        for (int s : new int[] {202, 503, 400, 500}) assertEquals(server.count(s), r.status(s), "status " + s);
        assertEquals(0, r.ioErrors());
        Map<String, Object> json = r.toJson();
        Map<?, ?> answers = (Map<?, ?>) json.get("answers");
        assertEquals(server.count(202), answers.get("accepted202"));
        assertEquals(server.count(503), answers.get("overloaded503"));
        assertEquals(server.count(400), answers.get("other4xx"));
        assertEquals(server.count(500), answers.get("other5xx"));
    }

    @Test
    void sendsTheOrdersOfSpecSection6AsPosts() throws Exception {
        Pattern buy = Pattern.compile("POST /buy\\?userId=b([0-9]+)&productId=([0-9]+)&quantity=([0-9]+)");
        Pattern sell = Pattern.compile("POST /sell\\?userId=s([0-9]+)&productId=([0-9]+)&quantity=([0-9]+)&price=([0-9]+)\\.([0-9]{2})");
        try (CountingServer server = new CountingServer(ex -> 202)) {
            load("--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "0.5", "--warmup", "0",
                    "--products", "7", "--users", "4");
            int buys = 0;
            for (String req : server.requests) {
                Matcher b = buy.matcher(req);
                Matcher s = sell.matcher(req);
                Matcher m = b.matches() ? b : s.matches() ? s : null;
                assertTrue(m != null, "not an order of the mix: " + req);
                if (m == b) buys++;
                assertTrue(Integer.parseInt(m.group(1)) < 4, req);
                assertTrue(Integer.parseInt(m.group(2)) < 7, req);
                int q = Integer.parseInt(m.group(3));
                assertTrue(q >= 1 && q <= 10, req);
                if (m == s) {
                    int cents = Integer.parseInt(s.group(4)) * 100 + Integer.parseInt(s.group(5));
                    assertTrue(cents >= 1000 && cents <= 20000, req);
                }
            }
            double share = buys / (double) server.requests.size();
            assertTrue(share > 0.4 && share < 0.6, "about half buys: " + share);
        }
    }

    @Test
    void warmupIsSentButNotCounted() throws Exception {
        try (CountingServer server = new CountingServer(ex -> 202)) {
            LoadResult r = load("--url", server.url(), "--concurrency", "2", "--wait", "2", "--duration", "0.6",
                    "--warmup", "0.6");
            long sent = server.requests.size();
            assertTrue(r.requests() > 0);
            assertTrue(r.requests() < sent * 0.75, "about half of " + sent + " counted, not " + r.requests());
            Map<?, ?> latency = (Map<?, ?>) r.toJson().get("latencyMs");
            assertEquals(r.requests(), latency.get("count"), "the latency histogram holds the measured window only");
        }
    }

    @Test
    void theClosedLoopPausesWaitBetweenOrders() throws Exception {
        try (CountingServer server = new CountingServer(ex -> 202)) {
            LoadResult r = load("--url", server.url(), "--concurrency", "2", "--wait", "100", "--duration", "1", "--warmup", "0");
            // 2 workers x (1 s / ~100 ms) = at most about 20 (fewer when the machine is slow to answer)
            assertTrue(r.requests() >= 10 && r.requests() <= 24, "requests " + r.requests());
        }
    }

    /** 202 to everything, but the first request 0.5 s after creation waits one second. */
    static ToIntFunction<HttpExchange> stallOnce(AtomicBoolean stalled) {
        long start = System.nanoTime();
        return ex -> {
            if (System.nanoTime() - start > 500_000_000L && stalled.compareAndSet(false, true)) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 202;
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void fixedRateShowsAStallThatTheClosedLoopHides(String client) throws Exception {
        // At 200 orders/s about 200 orders were due during the one-second stall:
        // their latency from the due time is up to a second.
        AtomicBoolean stalled = new AtomicBoolean();
        try (CountingServer server = new CountingServer(stallOnce(stalled))) {
            LoadResult r = load("--url", server.url(), "--concurrency", "1", "--rate", "200", "--duration", "3", "--warmup", "0",
                    "--client", client);
            assertTrue(stalled.get());
            // Counts, not only percentiles: on a busy machine a few other answers are slow too.
            assertTrue(r.latencyCountAtLeastMs(500) >= 50,
                    "the ~100 orders due in the first half of the stall waited >= 500 ms: " + r.latencyCountAtLeastMs(500));
            assertTrue(r.latencyMs(99) >= 500, "corrected p99 shows the stall: " + r.latencyMs(99));
            assertTrue(r.latencyMs(100) >= 900, "corrected max ~ the stall: " + r.latencyMs(100));
            assertTrue(r.uncorrectedCountAtLeastMs(900) <= 2,
                    "uncorrected, only the request that met the stall is slow: " + r.uncorrectedCountAtLeastMs(900));
            assertTrue(r.uncorrectedLatencyMs(100) >= 900, "only its max shows it: " + r.uncorrectedLatencyMs(100));
            assertTrue(r.requests() + r.notSent() >= 560 && r.requests() + r.notSent() <= 610,
                    "3 s at 200/s were due: " + r.requests() + " sent + " + r.notSent() + " not sent");
        }
        // The same stall under the closed loop: one slow answer among hundreds.
        AtomicBoolean stalled2 = new AtomicBoolean();
        try (CountingServer server = new CountingServer(stallOnce(stalled2))) {
            LoadResult r = load("--url", server.url(), "--concurrency", "1", "--wait", "5", "--duration", "3", "--warmup", "0",
                    "--client", client);
            assertTrue(stalled2.get());
            assertTrue(r.latencyCountAtLeastMs(900) <= 2,
                    "the closed loop sees one slow answer, not the orders it never sent: " + r.latencyCountAtLeastMs(900));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void theFixedRateIsHeld(String client) throws Exception {
        try (CountingServer server = new CountingServer(ex -> 202)) {
            LoadResult r = load("--url", server.url(), "--concurrency", "4", "--rate", "300", "--duration", "2", "--warmup", "0.5",
                    "--client", client);
            assertEquals(600, r.requests(), 30, "2 s at 300/s");
            assertEquals(0, r.notSent());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void copesWithWhatRealServersSend(String client) throws Exception {
        // Tomcat-like "Connection: close" every 3rd answer, chunked bodies, and a server that
        // silently closes idle connections: every request must still be answered, none counted twice.
        String chunked = "HTTP/1.1 202 X\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
        String closing = "HTTP/1.1 202 X\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
        String plain = "HTTP/1.1 503 X\r\nContent-Length: 2\r\n\r\n{}";
        try (HttpConnectionTest.ScriptedServer a = new HttpConnectionTest.ScriptedServer(3, i -> i == 2 ? closing : chunked);
             HttpConnectionTest.ScriptedServer b = new HttpConnectionTest.ScriptedServer(1, i -> plain)) {
            LoadResult r = load("--url", a.url().toString(), "--concurrency", "3", "--wait", "2", "--duration", "0.5",
                    "--warmup", "0", "--client", client);
            assertEquals(0, r.ioErrors());
            assertEquals(a.requestLines.size(), r.status(202));
            assertTrue(a.connections.get() >= r.requests() / 3, "a new connection after each Connection: close");
            LoadResult q = load("--url", b.url().toString(), "--concurrency", "2", "--wait", "5", "--duration", "0.5",
                    "--warmup", "0", "--client", client);
            assertEquals(0, q.ioErrors(), "the stale connection is retried, not counted as an error");
            assertEquals(b.requestLines.size(), q.status(503), "each request reached the server once");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void aServerThatIsNotThereGivesIoErrorsNotACrash(String client) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        LoadResult r = load("--url", "http://127.0.0.1:" + port, "--concurrency", "2", "--wait", "0", "--duration", "0.5",
                "--warmup", "0", "--client", client);
        assertTrue(r.ioErrors() > 0);
        assertEquals(r.ioErrors(), r.requests());
        // the 10 ms back-off: ~2 x 50, not a busy loop of thousands
        assertTrue(r.ioErrors() < 200, "io errors " + r.ioErrors());
    }

    @ParameterizedTest
    @ValueSource(strings = {"nio", "blocking"})
    void aServerThatNeverAnswersTimesOut(String client) throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            LoadResult r = load("--url", "http://127.0.0.1:" + silent.getLocalPort(), "--concurrency", "2", "--wait", "0",
                    "--duration", "1", "--warmup", "0", "--timeout", "200", "--client", client);
            assertTrue(r.ioErrors() >= 2, "each stuck request becomes an I/O error after --timeout: " + r.ioErrors());
            assertEquals(r.ioErrors(), r.requests());
        }
    }

    @Test
    void writesTheJsonKeysOfTheReadmeAndProgressLines(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (CountingServer server = new CountingServer(ex -> 202)) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
            int rc = Main.run(new String[] {"load", "--url", server.url(), "--concurrency", "2", "--wait", "10",
                    "--duration", "1.2", "--warmup", "0", "--progress", "0.5", "--json", file.toString()}, out, out);
            assertEquals(0, rc, buf.toString(StandardCharsets.UTF_8));
            String text = buf.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("progress t="), text);
            assertTrue(text.contains("orders/s"), text);
        }
        JsonNode j = new ObjectMapper().readTree(Files.readString(file));
        for (String key : List.of("mode", "url", "concurrency", "waitMs", "rate", "durationS", "warmupS", "products", "users",
                "seed", "windowStartMs", "windowEndMs", "requests", "requestsPerSecond", "acceptedPerSecond", "answers",
                "byStatus", "notSent", "latencyMs", "latencyUncorrectedMs", "db")) {
            assertTrue(j.has(key), "missing key " + key + " in " + j);
        }
        for (String key : List.of("accepted202", "overloaded503", "other4xx", "other5xx", "otherStatus", "ioErrors")) {
            assertTrue(j.path("answers").has(key), key);
        }
        for (String key : List.of("count", "mean", "p50", "p90", "p99", "p999", "max")) {
            assertTrue(j.path("latencyMs").has(key), key);
        }
        assertEquals("closed", j.path("mode").asText());
        assertTrue(j.path("db").isNull());
        assertEquals(j.path("requests").asLong(), j.path("byStatus").path("202").asLong());
    }
}
