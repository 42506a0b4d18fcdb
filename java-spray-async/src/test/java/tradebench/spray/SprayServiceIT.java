package tradebench.spray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * The whole service in process, over a real socket: a crashed engine, malformed requests
 * (the drain and the outage: ServiceContractIT).
 */
class SprayServiceIT {

    /**
     * FAULTS=on: a crashed engine actor is restarted with a new, empty market and keeps its
     * partition; the orders that were open in it are forgotten, later orders trade, and the
     * drain still accounts for every sale.
     */
    @Test
    void aCrashedEngineIsReplacedAndKeepsItsPartition() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        SprayService service = Main.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "2", "FAULTS", "on"));
        String base = "http://127.0.0.1:" + service.port();
        HttpClient http = HttpClient.newHttpClient();
        try {
            String lost = post(http, base + "/sell?userId=s1&productId=1&quantity=1&price=5").body();
            long lostId = Long.parseLong(lost.replaceAll("\\D*(\\d+).*", "$1"));
            Wait.until(() -> service.stats().engine(1).openOrders() == 1, "engine 1 holds the order");
            assertEquals(400, post(http, base + "/faults/crash-engine?engine=2").statusCode());
            HttpResponse<String> crash = post(http, base + "/faults/crash-engine?engine=1");
            assertEquals(202, crash.statusCode());
            assertEquals("{\"engine\":1,\"status\":\"crashing\"}", crash.body());
            Wait.until(() -> service.gateway().registry().find(lostId) == null, "the lost order is forgotten");
            assertEquals(202, post(http, base + "/sell?userId=s2&productId=1&quantity=1&price=7").statusCode());
            assertEquals(202, post(http, base + "/buy?userId=b1&productId=1&quantity=1").statusCode());
            Wait.until(() -> service.stats().salesPersisted() == 1, "the sale is stored");
        } finally {
            service.drain();
        }
        assertEquals(1, tdb.count("PRICE = 7"), "the new market traded the later orders");
        assertEquals(1, tdb.count(""));
        assertEquals("exit variant=java-spray-async accepted=3 sales=1", service.stats().exitLine());
    }

    private static HttpResponse<String> post(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }


    /** Requests too malformed for the routes are answered by Akka HTTP itself: still JSON, and a 4xx, never a 5xx. */
    @Test
    void malformedRequestsGetJsonToo() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        SprayService service = Main.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "1"));
        try {
            String h = "Host: x\r\nConnection: close\r\n";
            String badTarget = raw(service.port(), "GET /buy?userId=b%zz&productId=1&quantity=1 HTTP/1.1\r\n" + h + "\r\n");
            assertTrue(badTarget.startsWith("HTTP/1.1 400 "), badTarget);
            assertTrue(badTarget.contains("Content-Type: application/json"), badTarget);
            assertTrue(badTarget.contains("{\"error\":\"Illegal request-target"), badTarget);
            String unknownMethod = raw(service.port(), "FOO /buy?userId=a&productId=1&quantity=1 HTTP/1.1\r\n" + h + "\r\n");
            assertTrue(unknownMethod.startsWith("HTTP/1.1 4") && unknownMethod.contains("{\"error\":"), unknownMethod);
            String http2 = raw(service.port(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
            assertTrue(http2.isEmpty() || http2.startsWith("HTTP/1.1 4"), http2);
            String badChunk = raw(service.port(), "POST /buy HTTP/1.1\r\n" + h
                    + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nuserId=a\r\n0\r\n\r\n");
            assertTrue(badChunk.startsWith("HTTP/1.1 400 ") && badChunk.contains("{\"error\":"), badChunk);
            assertEquals(0, service.stats().accepted());
        } finally {
            service.drain();
        }
    }

    private static String raw(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return readAll(s.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8); // the server closes after a parse error
    }
}
