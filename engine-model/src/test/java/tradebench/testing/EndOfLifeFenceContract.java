package tradebench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The fence around the known vulnerabilities of the end-of-life Akka 2.6
 * (README, "Akka's end of life") that every variant built on Akka keeps, in
 * the service as it runs (started in this JVM on the real test database):
 * Akka's async DNS resolver is not used (CVE-2023-31442), and the HTTP server
 * does not honour HTTP/2 (CVE-2023-44487), neither by prior knowledge nor by
 * an h2c upgrade. A variant's test class says how to start its service and
 * read its actor system's settings, and adds the fences of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class EndOfLifeFenceContract<S> {
    /** What the suite reads of a started service. */
    private record Reads<S>(ToIntFunction<S> port, BiFunction<S, String, String> setting, Consumer<S> drain) {
    }

    private final String variant;
    private final ServiceContract.Start<S> start;
    private final Reads<S> reads;
    /** The service the tests run against, started once for the class. */
    protected S service;

    /**
     * {@code variant}: the module whose test database the service uses; {@code setting}: a path's
     * value in the service's effective actor-system configuration, below its root ({@code akka},
     * or {@code pekko} in the variant's Pekko build).
     */
    protected EndOfLifeFenceContract(String variant, ServiceContract.Start<S> start, ToIntFunction<S> port,
            BiFunction<S, String, String> setting, Consumer<S> drain) {
        this.variant = variant;
        this.start = start;
        this.reads = new Reads<>(port, setting, drain);
    }

    @BeforeAll
    void startTheService() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        service = start.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "2"));
    }

    @AfterAll
    void stopTheService() {
        if (service != null) reads.drain().accept(service);
    }

    /** The port the service listens on. */
    protected int port() {
        return reads.port().applyAsInt(service);
    }

    /** {@code path}'s value in the service's effective actor-system configuration, below its root. */
    protected String setting(String path) {
        return reads.setting().apply(service, path);
    }

    @Test
    void akkasAsyncDnsResolverIsNotUsed() {
        assertEquals("inet-address", setting("io.dns.resolver"));
    }

    @Test
    void theHttpServerDoesNotHonourHttp2() throws Exception {
        // prior knowledge: an HTTP/2 server would answer the preface with a SETTINGS frame
        String prior = RawHttp.exchange(port(), RawHttp.H2_PREFACE);
        assertTrue(prior.isEmpty() || prior.startsWith("HTTP/1.1 4") || prior.startsWith("HTTP/1.1 505"),
                "the HTTP/2 preface is refused as HTTP/1.1: " + prior);
        // h2c upgrade: answered as HTTP/1.1, never 101 Switching Protocols
        String upgrade = RawHttp.exchange(port(), RawHttp.h2cUpgrade("/health"));
        assertTrue(RawHttp.statusLine(upgrade).startsWith("HTTP/1.1 200 "), upgrade);
        assertNotEquals("h2c", RawHttp.header(upgrade, "Upgrade"), upgrade);
    }
}
