package tradebench.loadclient.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The generated bad inputs: enough of them, every class of the issue, none a valid order. */
class MalformedRequestsTest {

    private final List<MalformedRequests.Request> requests = MalformedRequests.orders("r1-", 100);

    @Test
    void atLeastFiveHundredWithGarbage() {
        assertTrue(requests.size() + MalformedRequests.garbage("127.0.0.1", 1).size() >= 500, "only " + requests.size());
        assertEquals(requests.size(), MalformedRequests.orders("r1-", 100).size(), "deterministic");
    }

    @Test
    void everyClassOfTheIssueIsThere() {
        String all = String.join("\n", requests.stream().map(r -> r.method() + " " + r.target() + " " + r.form() + " " + r.what()).toList());
        for (String needle : List.of("without userId", "without productId", "without quantity", "sell without price",
                "userId twice", "quantity twice", "price twice", "quantity=", "productId=-1", "quantity=-1", "1.5", "abc",
                "NaN", "Infinity", "9999999999999999999", "%C3%A9", "DROP+TABLE", "%3Cscript%3E", "7000-character URL",
                "unknown path", "PUT /buy", "DELETE /sell", "PATCH", "FOO /stats", "(form body)", "GET buy", "GET /orders/abc")) {
            assertTrue(all.contains(needle), "no bad input with " + needle);
        }
        Set<String> methods = new HashSet<>();
        requests.forEach(r -> methods.add(r.method()));
        assertTrue(methods.containsAll(Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "FOO")), methods.toString());
        assertTrue(requests.stream().anyMatch(r -> r.target().length() > 7000), "a very long URL");
        assertTrue(requests.stream().anyMatch(r -> r.target().contains("userId=" + "b".repeat(1000))), "a huge user id");
    }

    /** A request the contract would accept would place an order: none may be one (a rough validator of contract section 3). */
    @Test
    void noneIsAValidOrder() {
        for (MalformedRequests.Request r : requests) {
            assertTrue(!validOrder(r), "a valid order among the bad inputs: " + r);
        }
    }

    private static boolean validOrder(MalformedRequests.Request r) {
        if (!r.method().equals("GET") && !r.method().equals("POST")) return false;
        String path = r.target().contains("?") ? r.target().substring(0, r.target().indexOf('?')) : r.target();
        if (!path.equals("/buy") && !path.equals("/sell")) return false;
        String query = (r.target().contains("?") ? r.target().substring(r.target().indexOf('?') + 1) : "")
                + (r.form() != null ? "&" + r.form() : "");
        java.util.Map<String, List<String>> p = new java.util.HashMap<>();
        for (String piece : query.split("&")) {
            if (piece.isEmpty()) continue;
            int eq = piece.indexOf('=');
            String k;
            String v;
            try {
                k = URLDecoder.decode(eq < 0 ? piece : piece.substring(0, eq), StandardCharsets.UTF_8);
                v = URLDecoder.decode(eq < 0 ? "" : piece.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return false;
            }
            p.computeIfAbsent(k, x -> new java.util.ArrayList<>()).add(v);
        }
        if (p.values().stream().anyMatch(l -> l.size() > 1) && p.entrySet().stream().anyMatch(e -> e.getValue().size() > 1
                && List.of("userId", "productId", "quantity", "price").contains(e.getKey()))) return false;
        String user = one(p, "userId");
        String product = one(p, "productId");
        String quantity = one(p, "quantity");
        String price = one(p, "price");
        if (user == null || !user.matches("[A-Za-z0-9_.-]{1,64}")) return false;
        if (product == null || !product.matches("0|[1-9][0-9]{0,5}") || Integer.parseInt(product) >= 100) return false;
        if (quantity == null || !quantity.matches("[1-9][0-9]{0,6}") || Integer.parseInt(quantity) > 1_000_000) return false;
        if (price == null) return path.equals("/buy");
        if (!price.matches("(0|[1-9][0-9]{0,9})(\\.[0-9]{1,2})?")) return false;
        java.math.BigDecimal d = new java.math.BigDecimal(price);
        return d.signum() > 0 && d.compareTo(new java.math.BigDecimal("1000000000")) <= 0;
    }

    private static String one(java.util.Map<String, List<String>> p, String k) {
        List<String> l = p.get(k);
        return l == null ? null : l.get(0);
    }
}
