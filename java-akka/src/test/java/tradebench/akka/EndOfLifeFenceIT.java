package tradebench.akka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tradebench.testing.RawHttp;
import tradebench.testing.TestDatabase;

/**
 * The fence around the known vulnerabilities of the end-of-life Akka 2.6
 * (README, "Akka's end of life"), in the service as it runs (AkkaService on the
 * real test database): Akka's async DNS resolver is not used
 * (CVE-2023-31442); Akka HTTP, whose file uploads (CVE-2023-33251) and HTTP/2
 * (CVE-2023-44487) are affected, is not even on the classpath, and the HTTP
 * server it has (Tomcat) speaks no HTTP/2.
 */
class EndOfLifeFenceIT {
    private static AkkaService service;

    @BeforeAll
    static void start() throws Exception {
        TestDatabase tdb = TestDatabase.forModule("java-akka");
        tdb.deleteAllSales();
        service = AkkaService.start(tdb.config("PORT", "0", "ENGINES", "2"));
    }

    @AfterAll
    static void stop() {
        if (service != null) service.drain();
    }

    @Test
    void akkasAsyncDnsResolverIsNotUsed() {
        assertEquals("inet-address", service.system().settings().config().getString("akka.io.dns.resolver"));
    }

    @Test
    void akkaHttpIsNotOnTheClasspath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("akka.http.scaladsl.Http"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("akka.http.javadsl.server.directives.FileUploadDirectives"));
    }

    @Test
    void theHttpServerDoesNotHonourHttp2() throws Exception {
        // prior knowledge: an HTTP/2 server would answer the preface with a SETTINGS frame
        String prior = RawHttp.exchange(service.port(), RawHttp.H2_PREFACE);
        assertTrue(prior.isEmpty() || prior.startsWith("HTTP/1.1 4") || prior.startsWith("HTTP/1.1 505"),
                "the HTTP/2 preface is refused as HTTP/1.1: " + prior);
        // h2c upgrade: answered as HTTP/1.1, never 101 Switching Protocols
        String upgrade = RawHttp.exchange(service.port(), RawHttp.h2cUpgrade("/health"));
        assertEquals("HTTP/1.1 200 ", RawHttp.statusLine(upgrade).substring(0, 13), upgrade);
        assertNotEquals("h2c", RawHttp.header(upgrade, "Upgrade"), upgrade);
    }
}
