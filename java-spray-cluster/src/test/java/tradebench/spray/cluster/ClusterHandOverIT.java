package tradebench.spray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import tradebench.spray.SprayService;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * Two cluster members in one JVM, on the real test database: an order accepted
 * by one member trades in a partition on the other; the member that leaves
 * (its drain, as on SIGTERM) hands its partition over with its open order,
 * partly filled, which then trades on the member that stays; the one that
 * stays answers for the orders of the one that left from its partitions and
 * SALES.
 */
class ClusterHandOverIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private HttpResponse<String> send(String method, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(String method, String url, int status) throws Exception {
        HttpResponse<String> r = send(method, url);
        assertEquals(status, r.statusCode(), method + " " + url + ": " + r.body());
        return JSON.readTree(r.body());
    }

    private boolean up(String base) {
        try {
            return send("GET", base + "/health").statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }

    private static String handOverState(TestDatabase tdb, int engine) throws Exception {
        try (Connection c = tdb.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT STATE FROM ENGINE_HANDOVER WHERE ENGINE = " + engine)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void anOrderTradesAcrossMembersAndItsPartitionMovesWithItWhenItsMemberLeaves() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        try (Connection c = tdb.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM ENGINE_HANDOVER");
        }
        int ra = freePort(), rb = freePort();
        String seeds = "127.0.0.1:" + ra + ",127.0.0.1:" + rb;
        SprayService a = ClusterMember.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "4",
                "CLUSTER_HOST", "127.0.0.1", "CLUSTER_PORT", Integer.toString(ra), "CLUSTER_SEEDS", seeds)).service();
        SprayService b = ClusterMember.start(tdb.config("PORT", "0", "BIND", "127.0.0.1", "ENGINES", "4",
                "CLUSTER_HOST", "127.0.0.1", "CLUSTER_PORT", Integer.toString(rb), "CLUSTER_SEEDS", seeds)).service();
        String baseA = "http://127.0.0.1:" + a.port(), baseB = "http://127.0.0.1:" + b.port();
        boolean aStopped = false;
        try {
            Wait.until(() -> up(baseA) && up(baseB), "both members up in one cluster");
            Wait.until(() -> json("GET", baseB + "/stats", 200).path("member").path("hosted").size() > 0
                    && json("GET", baseA + "/stats", 200).path("member").path("hosted").size() > 0, "each member runs a partition");
            int engine = json("GET", baseB + "/stats", 200).path("member").path("hosted").get(0).asInt();
            int product = engine; // product p belongs to engine p mod 4

            // accepted by A, traded by B's partition
            long sell = json("POST", baseA + "/sell?userId=s1&productId=" + product + "&quantity=2&price=5", 202).path("id").asLong();
            long buy = json("POST", baseB + "/buy?userId=b1&productId=" + product + "&quantity=1", 202).path("id").asLong();
            assertEquals(0, ClusterSettings.issuerOf(sell));
            assertEquals(1, ClusterSettings.issuerOf(buy));
            Wait.until(() -> tdb.count("SO_ID = " + sell) == 1, "the sale of A's sell and B's buy is stored");
            assertEquals(1, tdb.count("PO_ID = " + buy + " AND SO_ID = " + sell));
            Wait.until(() -> json("GET", baseB + "/orders/" + buy, 200).path("status").asText().equals("filled"), "B's buy filled");
            JsonNode view = json("GET", baseB + "/orders/" + sell, 200); // asked of A, the issuer
            assertEquals("open", view.path("status").asText(), view.toString());
            assertEquals(1, view.path("remaining").asLong());
            JsonNode totals = json("GET", baseA + "/stats", 200);
            assertEquals(2, totals.path("accepted").asLong(), "the cluster's totals: " + totals);
            assertEquals(1, totals.path("salesPersisted").asLong());
            assertEquals(2, totals.path("cluster").path("members").size());

            // accepted by B, open in a partition: it stays open after B has gone
            int other = (product + 1) % 4;
            long resting = json("POST", baseB + "/sell?userId=s2&productId=" + other + "&quantity=3&price=999", 202)
                    .path("id").asLong();
            Wait.until(() -> json("GET", baseB + "/orders/" + resting, 200).path("status").asText().equals("open")
                    && json("GET", baseB + "/stats", 200).path("member").path("pendingOrders").asLong() == 0, "B's sell joined");

            // B leaves (its drain, as on SIGTERM): its partition hands the open sell over
            b.drain();
            assertEquals("exit variant=java-spray-async accepted=2 sales=1", b.stats().exitLine());

            // B's orders, asked of A: B is gone, so its partitions and SALES answer, never 404
            Wait.until(() -> send("GET", baseA + "/orders/" + resting).statusCode() == 200, "A answers for B's order");
            JsonNode held = json("GET", baseA + "/orders/" + resting, 200);
            assertEquals("open", held.path("status").asText(), "held by its partition: " + held);
            assertEquals(3, held.path("remaining").asLong(), held.toString());
            JsonNode traded = json("GET", baseA + "/orders/" + buy, 200);
            assertEquals("unknown", traded.path("status").asText(), "its fills, its quantity gone with B: " + traded);
            assertEquals(1, traded.path("fills").size(), traded.toString());
            JsonNode gone = json("GET", baseA + "/orders/" + (buy - 16), 200);
            assertEquals("lost", gone.path("status").asText(), "an id of B's, held by no partition, no fills: " + gone);
            json("GET", baseA + "/orders/" + (buy + 16L * 1_000_000_000_000L), 404); // later than B's departure: never B's
            assertTrue(handOverState(tdb, engine) != null);
            long buy2 = json("POST", baseA + "/buy?userId=b2&productId=" + product + "&quantity=1", 202).path("id").asLong();
            Wait.until(() -> tdb.count("PO_ID = " + buy2 + " AND SO_ID = " + sell) == 1,
                    "the handed-over sell, 1 of 2 left, trades on A");
            assertEquals(2, tdb.count("SO_ID = " + sell), "no more than its quantity");
            Wait.until(() -> json("GET", baseA + "/orders/" + sell, 200).path("status").asText().equals("filled"), "filled");
            assertEquals("running", handOverState(tdb, engine), "claimed by its new incarnation on A");
            assertEquals(1, json("GET", baseA + "/stats", 200).path("cluster").path("members").size());
            a.drain();
            aStopped = true;
            assertEquals("handed-over", handOverState(tdb, engine), "the last member writes its partitions too");
            assertFalse(up(baseA));
        } finally {
            if (!aStopped) {
                try {
                    a.drain();
                } catch (RuntimeException e) {
                    // already stopping
                }
            }
        }
    }
}
