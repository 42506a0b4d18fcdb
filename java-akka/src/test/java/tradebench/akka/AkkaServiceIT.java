package tradebench.akka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/** The whole service over HTTP on the test database: overload, settings (the drain and the outage: ServiceContractIT). */
class AkkaServiceIT {
    private final HttpClient http = HttpClient.newHttpClient();
    private TestDatabase tdb;
    private AkkaService service;

    @BeforeEach
    void setUp() throws Exception {
        tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
    }

    @AfterEach
    void tearDown() {
        if (service != null) {
            try {
                service.drain();
            } catch (RuntimeException alreadyDrained) {
                // drained by the test
            }
        }
    }

    private AkkaService start(String... settings) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> all = new ArrayList<>(List.of("PORT", Integer.toString(port)));
        all.addAll(List.of(settings));
        service = AkkaService.start(tdb.config(all.toArray(String[]::new)));
        return service;
    }

    private HttpResponse<String> post(String pathAndQuery) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + pathAndQuery))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFullInboxAnswers503WithRetryAfterAndTheDrainStillJoinsWhatWaits() throws Exception {
        // one engine, room for one waiting order, and no cycle for a minute after the first
        start("ENGINES", "1", "INBOX_LIMIT", "1", "DELAY_MS", "60000");
        Wait.until(() -> service.stats().engine(0).cycles() >= 1, "the start's cycle (the next is a minute away)");
        HttpResponse<String> first = post("/sell?userId=s1&productId=3&quantity=2&price=12.5");
        assertEquals(202, first.statusCode(), first.body());
        HttpResponse<String> second = post("/buy?userId=b1&productId=4&quantity=1");
        assertEquals(503, second.statusCode());
        assertEquals("{\"error\":\"overloaded\"}", second.body());
        assertEquals("1", second.headers().firstValue("Retry-After").orElse(""));
        String stats = get("/stats").body();
        assertTrue(stats.contains("\"overloaded\":1") && stats.contains("\"pendingOrders\":1"), stats);

        String exit = service.drain(); // does not wait out the minute: the drain runs the cycle now
        assertEquals("exit variant=java-akka accepted=1 sales=0", exit);
        assertEquals(0, service.stats().engine(0).pendingOrders());
        assertEquals(1, service.stats().engine(0).openOrders(), "the waiting order joined the market before the exit");
        service = null;
    }

    @Test
    void aBadDispatcherSettingStopsTheStartWithAMessage() {
        Config config = tdb.config("DISPATCHER", "work-stealing");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AkkaSettings.from(config));
        assertEquals("DISPATCHER must be thread-pool or fork-join, not 'work-stealing'", e.getMessage());
    }
}
