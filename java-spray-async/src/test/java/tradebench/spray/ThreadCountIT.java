package tradebench.spray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * The design's claim: the JVM's thread count does not grow with ENGINES (the
 * engines are actors, the database driver is non-blocking). The service runs
 * as a child JVM with 2 and then 32 engines, trades on every engine, and its
 * live threads are read from /proc. A SIGTERM then drains it: exit 0 and the
 * exit line last.
 */
class ThreadCountIT {
    private static final Pattern THREADS = Pattern.compile("(?m)^Threads:\\s+(\\d+)");

    @Test
    void threadsDoNotGrowWithEngines() throws Exception {
        Path proc = Path.of("/proc/self/status");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(proc), "needs Linux /proc");
        TestDatabase tdb = TestDatabase.ofThisModule();
        int with2 = liveThreads(tdb, 2);
        int with32 = liveThreads(tdb, 32);
        System.out.println("java-spray-async live threads under load: ENGINES=2 -> " + with2 + ", ENGINES=32 -> " + with32);
        // JIT compiler threads come and go on their own: allow a couple
        assertTrue(with32 <= with2 + 3, "threads grew with ENGINES: " + with2 + " -> " + with32);
    }

    /** Starts the service with {@code engines}, trades on every engine, returns its live threads; then drains it. */
    private static int liveThreads(TestDatabase tdb, int engines) throws Exception {
        tdb.deleteAllSales();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Config c = tdb.config();
        List<String> cmd = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java"));
        if (Runtime.version().feature() >= 24) cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.addAll(List.of("-XX:+UseParallelGC", "-Xss512k", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.put("PORT", Integer.toString(port));
        env.put("BIND", "127.0.0.1");
        env.put("ENGINES", Integer.toString(engines));
        env.put("DB_HOST", c.dbHost());
        env.put("DB_PORT", Integer.toString(c.dbPort()));
        env.put("DB_NAME", c.dbName());
        env.put("DB_USER", c.dbUser());
        env.put("DB_PASSWORD", c.dbPassword());
        File log = File.createTempFile("spray-threads-" + engines + "-", ".log");
        pb.redirectErrorStream(true).redirectOutput(log);
        Process p = pb.start();
        try {
            String base = "http://127.0.0.1:" + port;
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            waitHealthy(http, base, p, log);
            // a sale on every product, so every engine trades and stores, from 16 requests at a time
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int product = 0; product < 100; product++) {
                answers.add(http.sendAsync(get(base + "/sell?userId=s1&productId=" + product + "&quantity=1&price=1"), HttpResponse.BodyHandlers.ofString()));
                answers.add(http.sendAsync(get(base + "/buy?userId=b1&productId=" + product + "&quantity=1"), HttpResponse.BodyHandlers.ofString()));
                if (answers.size() >= 16) {
                    for (var a : answers) assertEquals(202, a.get().statusCode());
                    answers.clear();
                }
            }
            for (var a : answers) assertEquals(202, a.get().statusCode());
            Wait.until(() -> tdb.count("") >= 100, "every engine traded and stored");
            assertEquals(100, tdb.count(""), "every engine traded and stored, each sale once");
            int max = 0;
            for (int i = 0; i < 5; i++) {
                Matcher m = THREADS.matcher(Files.readString(Path.of("/proc/" + p.pid() + "/status")));
                assertTrue(m.find());
                max = Math.max(max, Integer.parseInt(m.group(1)));
                Thread.sleep(200);
            }
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "drained and exited");
            assertEquals(0, p.exitValue(), Files.readString(log.toPath()));
            List<String> lines = Files.readAllLines(log.toPath());
            assertEquals("exit variant=java-spray-async accepted=200 sales=100", lines.get(lines.size() - 1));
            return max;
        } finally {
            p.destroyForcibly();
            log.delete();
        }
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).build();
    }

    private static void waitHealthy(HttpClient http, String base, Process p, File log) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline) {
            assertTrue(p.isAlive(), () -> "the service died: " + read(log));
            try {
                if (http.send(get(base + "/health"), HttpResponse.BodyHandlers.ofString()).statusCode() == 200) return;
            } catch (java.io.IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new AssertionError("not healthy within 90 s: " + read(log));
    }

    private static String read(File f) {
        try {
            return Files.readString(f.toPath());
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
