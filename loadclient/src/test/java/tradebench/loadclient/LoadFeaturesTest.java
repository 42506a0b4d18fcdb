package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load features the benchmark harness builds on: the steady-state warm-up,
 * the halves of the window, the histogram file, the error budget and several
 * base URLs — each through {@code Main.run} and the JSON it writes, as the
 * harness calls them.
 */
class LoadFeaturesTest {

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

    private static final String OK = "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

    @Test
    void autoWarmupEndsWhenTwoWindowsAgreeOnTheSameConnections(@TempDir Path dir) throws Exception {
        // At a fixed rate a server that keeps up answers the same number of orders in every window:
        // the warm-up is steady after its second window (or soon after, if the machine hiccups).
        Path file = dir.resolve("r.json");
        try (HttpConnectionTest.ScriptedServer server = new HttpConnectionTest.ScriptedServer(Integer.MAX_VALUE, i -> OK)) {
            int rc = main("load", "--url", server.url().toString(), "--concurrency", "3", "--rate", "200",
                    "--duration", "1", "--warmup", "auto", "--steady-window", "0.5", "--steady-tolerance", "0.2",
                    "--warmup-max", "30", "--progress", "0.25", "--json", file.toString());
            assertEquals(0, rc, output());
            assertEquals(3, server.connections.get(), "one connection per worker, kept across warm-up and window");
        }
        JsonNode j = json(file);
        JsonNode w = j.path("warmup");
        assertEquals("auto", w.path("mode").asText());
        assertTrue(w.path("steady").asBoolean(), j.toString());
        List<Double> windows = new ArrayList<>();
        w.path("windowsOrdersPerSecond").forEach(n -> windows.add(n.asDouble()));
        assertTrue(windows.size() >= 2, "at least two windows compared: " + windows);
        double a = windows.get(windows.size() - 2);
        double b = windows.get(windows.size() - 1);
        assertTrue(Math.abs(a - b) / Math.max(a, b) < 0.2, "the last two windows agree: " + windows);
        for (int i = 1; i < windows.size() - 1; i++) {
            double x = windows.get(i - 1);
            double y = windows.get(i);
            assertFalse(Math.abs(x - y) / Math.max(x, y) < 0.2, "the warm-up ended at the first agreeing pair: " + windows);
        }
        double seconds = w.path("seconds").asDouble();
        assertTrue(seconds >= 0.5 * windows.size() - 0.01, "the warm-up lasted its windows: " + seconds + " " + windows);
        assertEquals(seconds, j.path("warmupS").asDouble(), 1e-9, "warmupS is the warm-up's real length");
        // The window really is the second after the warm-up: 200 orders due in it.
        assertEquals(200, j.path("requests").asLong() + j.path("notSent").asLong(), 10);
        String text = output();
        assertTrue(text.contains("phase=warmup"), text);
        assertTrue(text.contains("phase=measure"), text);
        assertTrue(text.contains("warmup steady after"), text);
    }

    @Test
    void autoWarmupStopsAtWarmupMaxNotSteady(@TempDir Path dir) throws Exception {
        // Nobody listens: every window has 0 answers, which is never steady.
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path file = dir.resolve("r.json");
        int rc = main("load", "--url", "http://127.0.0.1:" + port, "--concurrency", "1", "--wait", "0",
                "--duration", "0.5", "--warmup", "auto", "--steady-window", "0.4", "--warmup-max", "1",
                "--json", file.toString());
        assertEquals(Main.TOO_MANY_ERRORS, rc, "nothing but I/O errors: " + output());
        JsonNode w = json(file).path("warmup");
        assertFalse(w.path("steady").asBoolean(true), w.toString());
        assertTrue(w.path("steady").isBoolean());
        assertEquals(1.0, w.path("seconds").asDouble(), 0.3, "stopped at --warmup-max: " + w);
        assertEquals(2, w.path("windowsOrdersPerSecond").size(), "two whole windows fit in 1 s: " + w);
        assertTrue(output().contains("NOT steady"), output());
    }

    @Test
    void fixedWarmupIsRecordedAsFixed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(ex -> 202)) {
            assertEquals(0, main("load", "--url", server.url(), "--concurrency", "2", "--wait", "5", "--duration", "0.5",
                    "--warmup", "1.1", "--steady-window", "0.5", "--json", file.toString()), output());
        }
        JsonNode j = json(file);
        JsonNode w = j.path("warmup");
        assertEquals("fixed", w.path("mode").asText());
        assertTrue(w.path("steady").isNull());
        assertEquals(1.1, w.path("seconds").asDouble());
        assertEquals(1.1, j.path("warmupS").asDouble());
        assertEquals(2, w.path("windowsOrdersPerSecond").size(), "the whole windows of the warm-up: " + w);
        assertTrue(w.path("windowsOrdersPerSecond").get(0).asDouble() > 0);
    }

    @Test
    void theHalvesShowASlowdownInTheSecondHalf(@TempDir Path dir) throws Exception {
        // The server answers at once until 1 s after the run starts, then 50 ms late:
        // the window [0, 2 s) is fast in its first half and slow in its second.
        Path file = dir.resolve("r.json");
        long start = System.nanoTime();
        try (LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(ex -> {
            if (System.nanoTime() - start > 1_000_000_000L) sleep(50);
            return 202;
        })) {
            assertEquals(0, main("load", "--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "2",
                    "--warmup", "0", "--json", file.toString()), output());
        }
        JsonNode j = json(file);
        JsonNode h = j.path("halves");
        double first = h.path("firstOrdersPerSecond").asDouble();
        double second = h.path("secondOrdersPerSecond").asDouble();
        assertTrue(second <= 41, "2 connections x 1/50 ms at most: " + h);
        assertTrue(first > 2 * second, h.toString());
        assertEquals((second - first) / first, h.path("drift").asDouble(), 0.001);
        // The halves split the window's requests: each half is 1 s.
        assertEquals(j.path("requests").asDouble(), first + second, 1.0);
        assertFalse(h.has("firstSalesPerMinute"), "no sales figures without --db-url");
    }

    @Test
    void theHistogramFileIsThePercentileDistributionInMilliseconds(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        Path hgrm = dir.resolve("latency.hgrm");
        try (LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(ex -> {
            sleep(20);
            return 202;
        })) {
            assertEquals(0, main("load", "--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "1",
                    "--warmup", "0.3", "--json", file.toString(), "--histogram", hgrm.toString()), output());
        }
        JsonNode j = json(file);
        assertEquals(hgrm.toString(), j.path("histogramFile").asText());
        List<String> lines = Files.readAllLines(hgrm);
        assertTrue(lines.get(0).trim().matches("Value\\s+Percentile\\s+TotalCount\\s+1/\\(1-Percentile\\)"), lines.get(0));
        List<double[]> rows = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].matches("[0-9.]+")) {
                rows.add(new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])});
            }
        }
        assertTrue(rows.size() > 5, lines.toString());
        assertTrue(rows.get(0)[0] >= 19.9 && rows.get(0)[0] < 1000, "every answer took >= 20 ms, in ms: " + rows.get(0)[0]);
        double[] last = rows.get(rows.size() - 1);
        assertEquals(1.0, last[1], 1e-9);
        assertEquals(j.path("latencyMs").path("count").asDouble(), last[2], "the window's histogram, warm-up excluded");
        assertEquals(j.path("latencyMs").path("max").asDouble(), last[0], 0.05);
        assertTrue(Files.readString(hgrm).contains("#[Max"), "the standard footer");
    }

    @Test
    void theErrorBudgetFailsTheRunButNever503(@TempDir Path dir) throws Exception {
        // quantity 10 (one order in ten) gets a 500: about 10 % errors.
        try (LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(
                ex -> LoadRunTest.quantity(ex) == 10 ? 500 : 202)) {
            Path file = dir.resolve("errors.json");
            int rc = main("load", "--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "0.5",
                    "--warmup", "0", "--json", file.toString());
            assertEquals(Main.TOO_MANY_ERRORS, rc, output());
            assertTrue(output().contains("--max-error-rate"), output());
            assertTrue(Files.exists(file), "the figures are written before the verdict");
            JsonNode j = json(file);
            assertEquals(j.path("answers").path("other5xx").asLong(), j.path("errors").asLong());
            assertEquals(j.path("errors").asDouble() / j.path("requests").asDouble(), j.path("errorRate").asDouble(), 1e-9);
            output.reset();
            assertEquals(0, main("load", "--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "0.5",
                    "--warmup", "0", "--max-error-rate", "0.5"), output());
        }
        // 503 (overloaded) and 202 are never errors.
        try (LoadRunTest.CountingServer server = new LoadRunTest.CountingServer(
                ex -> LoadRunTest.quantity(ex) <= 5 ? 503 : 202)) {
            output.reset();
            assertEquals(0, main("load", "--url", server.url(), "--concurrency", "2", "--wait", "0", "--duration", "0.5",
                    "--warmup", "0", "--max-error-rate", "0"), output());
            assertTrue(server.count(503) > 0);
        }
    }

    @Test
    void aUrlListSpreadsTheConnectionsRoundRobin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("r.json");
        try (HttpConnectionTest.ScriptedServer a = new HttpConnectionTest.ScriptedServer(Integer.MAX_VALUE, i -> OK);
             HttpConnectionTest.ScriptedServer b = new HttpConnectionTest.ScriptedServer(Integer.MAX_VALUE, i -> OK)) {
            String urls = a.url() + "," + b.url() + "/," + a.url();
            for (String client : new String[] {"nio", "blocking"}) {
                a.connections.set(0);
                b.connections.set(0);
                a.requestLines.clear();
                b.requestLines.clear();
                assertEquals(0, main("load", "--url", urls, "--concurrency", "6", "--wait", "5", "--duration", "0.5",
                        "--warmup", "0", "--client", client, "--json", file.toString()), output());
                // connection i -> url i mod 3: a, b, a, a, b, a
                assertEquals(4, a.connections.get(), client);
                assertEquals(2, b.connections.get(), client);
                assertTrue(a.requestLines.size() > 0 && b.requestLines.size() > 0);
                JsonNode j = json(file);
                assertEquals(urls, j.path("url").asText(), "the list as given");
                assertEquals(a.requestLines.size() + b.requestLines.size(), j.path("requests").asLong());
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
