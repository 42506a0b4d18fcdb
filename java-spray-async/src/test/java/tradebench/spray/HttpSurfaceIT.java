package tradebench.spray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.testing.RawHttp;
import tradebench.testing.TestDatabase;

/**
 * The service as it runs (SprayService over a real socket, the real test
 * database): what its HTTP server does with methods and protocols beyond the
 * API, and the fence around the known vulnerabilities of the end-of-life Akka
 * 2.6 / Akka HTTP 10.2 (README, "Akka's end of life"): HTTP/2 is off
 * (CVE-2023-44487), Akka's async DNS resolver is not used (CVE-2023-31442),
 * and no route stores uploaded files (CVE-2023-33251).
 */
class HttpSurfaceIT {
    private static SprayService service;

    @BeforeAll
    static void start() throws Exception {
        TestDatabase tdb = TestDatabase.forModule("java-spray-async");
        tdb.deleteAllSales();
        service = SprayService.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "2"));
    }

    @AfterAll
    static void stop() {
        if (service != null) service.drain();
    }

    private static String send(String method, String path) throws IOException {
        return RawHttp.exchange(service.port(), RawHttp.request(method, path));
    }

    @Test
    void aRegisteredMethodTheApiDoesNotServeIs405WithAllow() throws Exception {
        String buy = send("QUERY", "/buy?userId=b1&productId=1&quantity=1");
        assertEquals("HTTP/1.1 405 Method Not Allowed", RawHttp.statusLine(buy), buy);
        assertEquals("GET, POST", RawHttp.header(buy, "Allow"), buy);
        assertEquals("{\"error\":\"method not allowed: QUERY /buy\"}", RawHttp.body(buy));
        String stats = send("QUERY", "/stats");
        assertEquals("HTTP/1.1 405 Method Not Allowed", RawHttp.statusLine(stats), stats);
        assertEquals("GET", RawHttp.header(stats, "Allow"), stats);
        String order = send("PROPFIND", "/orders/1");
        assertEquals("HTTP/1.1 405 Method Not Allowed", RawHttp.statusLine(order), order);
        assertEquals("GET", RawHttp.header(order, "Allow"), order);
        String unknown = send("QUERY", "/nope");
        assertEquals("HTTP/1.1 404 Not Found", RawHttp.statusLine(unknown), unknown);
        assertEquals(0, service.stats().accepted(), "no such request reached an engine");
    }

    @Test
    void aMethodOutsideTheRegistryIsA400NeverA405WithoutAllow() throws Exception {
        String answer = send("FROB", "/buy?userId=b1&productId=1&quantity=1");
        assertEquals("HTTP/1.1 400 Bad Request", RawHttp.statusLine(answer), answer);
        assertTrue(RawHttp.header(answer, "Content-Type").startsWith("application/json"), answer);
        assertTrue(RawHttp.body(answer).startsWith("{\"error\":"), answer);
    }

    @Test
    void http2IsOffInTheEffectiveConfigurationAndNotHonouredOnTheWire() throws Exception {
        Config effective = service.system().settings().config();
        assertFalse(effective.getBoolean("akka.http.server.preview.enable-http2"), "akka.http.server.preview.enable-http2");
        // prior knowledge: an HTTP/2 server would answer the preface with a SETTINGS frame
        String prior = RawHttp.exchange(service.port(), RawHttp.H2_PREFACE);
        assertTrue(prior.isEmpty() || prior.startsWith("HTTP/1.1 4"), "the HTTP/2 preface is refused as HTTP/1.1: " + prior);
        // h2c upgrade: answered as HTTP/1.1, never 101 Switching Protocols
        String upgrade = RawHttp.exchange(service.port(), RawHttp.h2cUpgrade("/health"));
        assertEquals("HTTP/1.1 200 OK", RawHttp.statusLine(upgrade), upgrade);
        assertNotEquals("h2c", RawHttp.header(upgrade, "Upgrade"), upgrade);
    }

    @Test
    void akkasAsyncDnsResolverIsNotUsed() {
        Config effective = service.system().settings().config();
        assertEquals("inet-address", effective.getString("akka.io.dns.resolver"));
    }

    @Test
    void noRouteStoresUploadedFiles() throws IOException {
        List<String> directives = List.of("storeUploadedFile", "storeUploadedFiles", "fileUpload", "fileUploadAll",
                "uploadedFile");
        Path main = Path.of("src", "main", "java");
        assertTrue(Files.isDirectory(main), "run from the module folder: " + main.toAbsolutePath());
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                for (String d : directives) assertFalse(text.contains(d), f + " uses " + d);
            }
        }
    }
}
