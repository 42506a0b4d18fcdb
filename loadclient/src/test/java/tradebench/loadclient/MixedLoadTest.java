package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SentOrder;

/**
 * {@code load --view-clients}: orders and order views in one run, through {@code Main.run} and its JSON as the
 * harness calls them, against a market inside the test that hands out ids and answers views as each test says.
 */
class MixedLoadTest {

    /** What the market does with a view: its status, after {@code delayMs} (a long delay is a view that hangs). */
    record ViewAnswer(int status, long delayMs) {}

    interface Views {
        ViewAnswer answer(long nowMs);
    }

    /** 202 with a fresh id to every order but those of quantity 10 (503, no id); views as {@code views} says. */
    static final class Market implements AutoCloseable {
        final HttpServer server;
        final Set<Long> issued = ConcurrentHashMap.newKeySet();
        final List<Long> viewed = new CopyOnWriteArrayList<>();
        final List<String> requests = new CopyOnWriteArrayList<>();
        final AtomicLong accepted = new AtomicLong();
        private final AtomicLong nextId = new AtomicLong(1_700_000_000_000_000L);

        Market(Views views) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 500);
            server.createContext("/", ex -> {
                try (ex) {
                    String method = ex.getRequestMethod();
                    String path = ex.getRequestURI().getPath();
                    requests.add(method + " " + path);
                    if (method.equals("GET") && path.startsWith("/orders/")) view(ex, views);
                    else if (method.equals("POST") && (path.equals("/buy") || path.equals("/sell"))) order(ex, path);
                    else answer(ex, 404, "{\"error\":\"not found\"}");
                }
            });
            server.setExecutor(Executors.newCachedThreadPool());
            server.start();
        }

        private void order(HttpExchange ex, String path) throws IOException {
            if (ex.getRequestURI().getRawQuery().contains("quantity=10")) {
                answer(ex, 503, "{\"error\":\"overloaded\"}");
                return;
            }
            long id = nextId.incrementAndGet();
            issued.add(id);
            accepted.incrementAndGet();
            answer(ex, 202, "{\"id\": " + id + ", \"side\": \"" + path.substring(1) + "\", \"status\": \"accepted\"}");
        }

        private void view(HttpExchange ex, Views views) throws IOException {
            viewed.add(Long.parseLong(ex.getRequestURI().getPath().substring("/orders/".length())));
            ViewAnswer a = views.answer(System.currentTimeMillis());
            sleep(a.delayMs());
            answer(ex, a.status(), a.status() == 200 ? "{\"id\":1,\"status\":\"open\",\"fills\":[]}" : "{\"error\":\"x\"}");
        }

        private static void answer(HttpExchange ex, int status, String body) throws IOException {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, b.length);
            ex.getResponseBody().write(b);
        }

        long count(String request) {
            return requests.stream().filter(r -> r.startsWith(request)).count();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    private int main(String... args) {
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
        return Main.run(args, out, out);
    }

    private String output() {
        return output.toString(StandardCharsets.UTF_8);
    }

    private static JsonNode json(Path file) throws Exception {
        return new ObjectMapper().readTree(Files.readString(file));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void viewsOfPlacedOrdersRunBesideTheOrdersEachWithItsOwnFigures(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (Market market = new Market(now -> new ViewAnswer(200, 50))) {
            int rc = main("load", "--url", market.url(), "--concurrency", "2", "--wait", "5", "--duration", "2",
                    "--warmup", "0", "--products", "5", "--view-clients", "20", "--view-pause", "50-150", "--progress", "0.5", "--json", file.toString());
            assertEquals(0, rc, output());
            JsonNode j = json(file);
            JsonNode order = j.path("types").path("order");
            JsonNode view = j.path("types").path("view");
            // The mix on the wire: orders are POSTs to /buy and /sell, views GETs of /orders/{id}, nothing else.
            long orders = market.count("POST /buy") + market.count("POST /sell");
            long views = market.count("GET /orders/");
            assertEquals(market.requests.size(), orders + views, "only orders and views: " + market.requests.subList(0, 5));
            assertEquals(orders, j.path("requests").asLong(), "the top-level keys still mean the orders");
            assertEquals(orders, order.path("requests").asLong());
            assertEquals(views, view.path("requests").asLong(), "every view sent is counted, each once");
            assertEquals(views, view.path("byStatus").path("200").asLong());
            assertEquals(views, view.path("answers").path("ok").asLong());
            assertEquals(j.path("answers").path("accepted202").asLong(), order.path("answers").path("ok").asLong());
            assertEquals(j.path("answers").path("overloaded503").asLong(), order.path("answers").path("refused503").asLong());
            assertTrue(order.path("answers").path("refused503").asLong() > 0, "the market refuses orders of quantity 10");
            // 20 clients x 2 s / (a 100 ms mean pause + the 50 ms answer) = about 267 views.
            assertTrue(views >= 130 && views <= 330, "views " + views);
            // Ids viewed are ids the market answered 202 (never one of a refused order, never made up).
            for (long id : market.viewed) assertTrue(market.issued.contains(id), "viewed " + id + ", never issued");
            assertTrue(Set.copyOf(market.viewed).size() > 20, "views spread over many ids");
            // Each type's own latency: the 50 ms of the views are not the orders'.
            assertTrue(view.path("latencyMs").path("p50").asDouble() >= 50, view.toString());
            assertTrue(order.path("latencyMs").path("p50").asDouble() < 40, order.toString());
            assertEquals(views, view.path("latencyMs").path("count").asLong());
            assertEquals(j.path("latencyMs"), order.path("latencyMs"), "the orders' histogram is the top-level one");
            assertTrue(view.path("latencyUncorrectedMs").isMissingNode(), "the closed loop has one latency");
            // The per-second series covers the window; its seconds add up to the totals.
            JsonNode seconds = view.path("perSecond");
            assertEquals(2, seconds.size(), seconds.toString());
            assertEquals(j.path("windowStartMs").asLong(), seconds.get(0).path("startMs").asLong());
            assertEquals(views, seconds.get(0).path("requests").asLong() + seconds.get(1).path("requests").asLong());
            assertTrue(seconds.get(1).path("p50").asDouble() >= 50, seconds.toString());
            assertEquals(0, view.path("phases").size(), "no --phases, no phases");
            String text = output();
            assertTrue(text.contains("view: requests " + views), text);
            assertTrue(text.contains("order: requests " + orders), text);
            assertTrue(text.contains("| views/s="), "the progress line shows the views too: " + text);
        }
    }

    @Test
    void phasesSplitTheWindowAtTheWallClockTimeOfWindowAt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        long windowAt = System.currentTimeMillis() + 700;
        long slowFrom = windowAt + 1000;
        // Views answer 504 during the second phase only, as a view's database slowed at the boundary would.
        try (Market market = new Market(now -> new ViewAnswer(now >= slowFrom ? 504 : 200, 0))) {
            int rc = main("load", "--url", market.url(), "--concurrency", "2", "--rate", "100", "--phases", "calm:1,slow:1",
                    "--window-at", Long.toString(windowAt), "--view-clients", "8", "--view-pause", "20-40",
                    "--progress", "0.5", "--json", file.toString());
            assertEquals(0, rc, "views' 504s never fail a run: " + output());
            JsonNode j = json(file);
            assertEquals(windowAt, j.path("windowStartMs").asLong(), "the window opens at --window-at");
            assertEquals(windowAt + 2000, j.path("windowEndMs").asLong(), "and lasts the phases' sum");
            assertEquals(2.0, j.path("durationS").asDouble(), 1e-9);
            assertEquals(0.7, j.path("warmup").path("seconds").asDouble(), 0.2, "the warm-up lasted until then");
            JsonNode view = j.path("types").path("view");
            JsonNode calm = view.path("phases").get(0);
            JsonNode slow = view.path("phases").get(1);
            assertEquals("calm", calm.path("name").asText());
            assertEquals(windowAt, calm.path("startMs").asLong());
            assertEquals(slowFrom, calm.path("endMs").asLong());
            assertEquals(slowFrom, slow.path("startMs").asLong());
            assertEquals(view.path("requests").asLong(), calm.path("requests").asLong() + slow.path("requests").asLong());
            assertTrue(calm.path("requests").asLong() > 30 && slow.path("requests").asLong() > 30, view.toString());
            // A view sent a millisecond before the boundary may reach the market after it: a few, at most.
            assertTrue(calm.path("answers").path("timedOut504").asLong() <= 3, calm.toString());
            assertTrue(slow.path("answers").path("ok").asLong() <= 3, slow.toString());
            assertTrue(slow.path("byStatus").path("504").asLong() > 30, slow.toString());
            JsonNode seconds = view.path("perSecond");
            assertEquals(2, seconds.size());
            assertEquals(windowAt + 1000, seconds.get(1).path("startMs").asLong());
            assertEquals(slow.path("requests").asLong(), seconds.get(1).path("requests").asLong(), "phase 2 is second 1");
            // The orders at a fixed rate: 100 due per second of the window, in each phase, with both latencies.
            JsonNode order = j.path("types").path("order");
            for (JsonNode p : order.path("phases")) {
                assertEquals(100, p.path("requests").asLong(), 5, p.toString());
            }
            assertNotNull(order.get("latencyUncorrectedMs"));
            assertEquals(0, j.path("errors").asLong(), "--max-error-rate judges the orders only");
            String text = output();
            assertTrue(text.contains("view phase slow: requests " + slow.path("requests").asLong()), text);
            assertTrue(text.contains("order phase calm: requests "), text);
        }
    }

    @Test
    void aViewLeftUnansweredIsAClientTimeoutAndItsConnectionReplaced(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (Market market = new Market(now -> new ViewAnswer(200, 1500))) {
            int rc = main("load", "--url", market.url(), "--concurrency", "1", "--wait", "5", "--duration", "1.2",
                    "--warmup", "0", "--view-clients", "3", "--view-pause", "0-10", "--view-timeout", "200", "--json", file.toString());
            assertEquals(0, rc, output());
            JsonNode j = json(file);
            JsonNode view = j.path("types").path("view");
            long timeouts = view.path("answers").path("clientTimeouts").asLong();
            // Each client: about every 200 ms (+ up to 100 ms of scan and 10 ms of pause) a view given up on.
            assertTrue(timeouts >= 6, view.toString());
            assertEquals(view.path("requests").asLong(), timeouts, "no view answered within 200 ms");
            assertEquals(0, view.path("answers").path("ioErrors").asLong(), "a time-out is its own kind, not an I/O error");
            assertEquals(0, view.path("latencyMs").path("count").asLong(), "no answer, no latency");
            assertEquals(0, j.path("types").path("order").path("answers").path("clientTimeouts").asLong());
            assertTrue(j.path("requests").asLong() > 20, "the orders went on: " + j.path("requests"));
        }
    }

    @Test
    void theAcceptedOrdersAreWrittenForTheAuditAndViewsKeepAFixedRate(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        Path orders = dir.resolve("orders.txt");
        try (Market market = new Market(now -> new ViewAnswer(200, 0))) {
            int rc = main("load", "--url", market.url(), "--concurrency", "2", "--wait", "5", "--duration", "1",
                    "--warmup", "0.3", "--client", "blocking", "--user-prefix", "m1-", "--orders-out", orders.toString(),
                    "--view-clients", "4", "--view-rate", "100", "--json", file.toString());
            assertEquals(0, rc, output());
            // Every 202 of the run, warm-up included, read back as the audit reads it.
            List<SentOrder> placed = OrderLog.read(orders.toString());
            assertEquals(market.accepted.get(), placed.size());
            for (SentOrder o : placed) {
                assertTrue(market.issued.contains(o.id()), o.toString());
                assertTrue(o.userId().startsWith(o.buy() ? "m1-b" : "m1-s"), o.toString());
                assertTrue(o.buy() == (o.price() == null), "sells have a price, buys none: " + o);
                assertTrue(o.quantity() >= 1 && o.quantity() <= 9, o.toString());
            }
            JsonNode j = json(file);
            assertEquals(placed.size(), j.path("ordersWritten").asLong());
            assertEquals(0, j.path("acceptedWithoutId").asLong());
            // 100 views/s over the 1 s window, from the due time, with the uncorrected view beside it.
            JsonNode view = j.path("types").path("view");
            assertEquals(100, view.path("requests").asLong() + view.path("notSent").asLong(), 5, view.toString());
            assertNotNull(view.get("latencyUncorrectedMs"), view.toString());
            for (long id : market.viewed) assertTrue(market.issued.contains(id));
        }
    }

    @Test
    void aRunWithoutViewsOrPhasesWritesTheJsonOfBefore(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (Market market = new Market(now -> new ViewAnswer(200, 0))) {
            assertEquals(0, main("load", "--url", market.url(), "--concurrency", "1", "--wait", "5", "--duration", "0.3",
                    "--warmup", "0", "--json", file.toString()), output());
            JsonNode j = json(file);
            assertFalse(j.has("types") || j.has("acceptedWithoutId") || j.has("ordersWritten"), j.toString());
            assertEquals(0, market.count("GET"));
            assertFalse(output().contains("view"), output());
        }
    }

    @Test
    void mistakesInTheNewFlagsAreUsageErrors() {
        long now = System.currentTimeMillis();
        String[][] mistakes = {
            {"--view-rate", "10"},
            {"--view-clients", "-1"},
            {"--view-clients", "2", "--view-pause", "500"},
            {"--view-clients", "2", "--view-pause", "900-100"},
            {"--view-clients", "2", "--view-timeout", "0"},
            {"--phases", "a:1,b"},
            {"--phases", "a:1,a:1"},
            {"--phases", "a:0"},
            {"--phases", "a:1,b:2", "--duration", "5"},
            {"--window-at", Long.toString(now - 1000)},
            {"--window-at", Long.toString(now + 11 * 60_000)},
            {"--window-at", Long.toString(now + 60_000), "--warmup", "5"},
            {"--user-prefix", "a b"},
            {"--phases", "long:5000"},
        };
        for (String[] m : mistakes) {
            String[] args = new String[m.length + 3];
            args[0] = "load";
            args[1] = "--url";
            args[2] = "http://127.0.0.1:9";
            System.arraycopy(m, 0, args, 3, m.length);
            output.reset();
            assertEquals(Main.USAGE, main(args), String.join(" ", m) + ": " + output());
        }
        // The phases' sum given as --duration as well is no mistake.
        assertEquals(3.0, tradebench.loadclient.load.LoadOptions.parse("--phases", "a:1,b:2", "--duration", "3")
                .window().durationS(), 1e-9);
        assertEquals(3.5, tradebench.loadclient.load.LoadOptions.parse("--phases", "a:1,b:2.5").window().durationS(), 1e-9);
    }
}
