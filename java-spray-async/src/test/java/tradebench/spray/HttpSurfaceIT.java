package tradebench.spray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import tradebench.testing.EndOfLifeFenceContract;
import tradebench.testing.RawHttp;

/**
 * The service as it runs (SprayService over a real socket, the real test
 * database): what its HTTP server does with methods and protocols beyond the
 * API, and the fence around the known vulnerabilities of the end-of-life Akka
 * 2.6 / Akka HTTP 10.2 (README, "Akka's end of life"): beside the shared
 * fences (EndOfLifeFenceContract: Akka's async DNS resolver is not used,
 * CVE-2023-31442; HTTP/2 is not honoured on the wire, CVE-2023-44487), HTTP/2
 * is off in the effective configuration and no route stores uploaded files
 * (CVE-2023-33251).
 */
class HttpSurfaceIT extends EndOfLifeFenceContract<SprayService> {
    HttpSurfaceIT() {
        super("java-spray-async", Main::start, SprayService::port,
                (service, path) -> service.system().settings().config().getConfig("akka").getString(path), SprayService::drain);
    }

    private String send(String method, String path) throws IOException {
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
    void http2IsOffInTheEffectiveConfiguration() {
        Config effective = service.system().settings().config();
        assertFalse(effective.getBoolean("akka.http.server.preview.enable-http2"), "akka.http.server.preview.enable-http2");
    }
}
