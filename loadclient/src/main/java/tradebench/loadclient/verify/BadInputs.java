package tradebench.loadclient.verify;

import java.util.ArrayList;
import java.util.List;

/**
 * Every bad-input class of contract section 3, as section 8 (docs/contract-details.md) answers it:
 * 400 naming the parameter, 404 for an unknown path, 405 (+ Allow) for a
 * wrong method on a known path. Valid parts of each request use the run's
 * user prefix and the products kept for this phase, so a bad order that got
 * in anyway trades with the run's counter order and shows in SALES.
 */
final class BadInputs {

    /** One bad request; {@code param} is the parameter the error must name (null: not checked). */
    record Case(String method, String target, int status, String param, String what) {}

    private BadInputs() {}

    static List<Case> cases(String prefix, int products, int buyProduct, int sellProduct) {
        List<Case> c = new ArrayList<>();
        String u = prefix + "x";
        String buy = "/buy?productId=" + buyProduct + "&quantity=1";
        String sell = "/sell?productId=" + sellProduct + "&quantity=1";
        String okUser = "userId=" + u + "1";

        // userId
        c.add(new Case("POST", "/buy?productId=" + buyProduct + "&quantity=1", 400, "userId", "userId missing"));
        c.add(new Case("POST", buy + "&userId=", 400, "userId", "userId empty"));
        c.add(new Case("POST", buy + "&userId=" + u + "y".repeat(65), 400, "userId", "userId longer than 64"));
        c.add(new Case("POST", buy + "&userId=" + u + "%20sp", 400, "userId", "userId with a space"));
        c.add(new Case("POST", buy + "&userId=" + u + "%2Fsl", 400, "userId", "userId with a slash"));
        c.add(new Case("POST", buy + "&userId=" + u + "%C3%A9", 400, "userId", "userId with a non-ASCII letter"));
        c.add(new Case("POST", buy + "&userId=" + u + "%27q", 400, "userId", "userId with a quote"));
        c.add(new Case("POST", buy + "&userId=" + u + "2&userId=" + u + "2", 400, "userId", "userId given twice"));
        c.add(new Case("POST", sell + "&price=50&userId=" + u + "%3Bsc", 400, "userId", "seller userId with a semicolon"));

        // productId
        String q = "&quantity=1&" + okUser;
        c.add(new Case("POST", "/buy?" + okUser + "&quantity=1", 400, "productId", "productId missing"));
        for (String p : List.of("", "abc", "-1", "+1", "007", "1.0", "1e1", Integer.toString(products), "99999999999999999999")) {
            c.add(new Case("POST", "/buy?productId=" + p + q, 400, "productId", "productId '" + p + "'"));
        }
        c.add(new Case("POST", "/sell?productId=" + products + "&quantity=1&price=50&" + okUser, 400, "productId",
                "sell on productId " + products + " (= PRODUCTS)"));

        // quantity
        c.add(new Case("POST", "/buy?productId=" + buyProduct + "&" + okUser, 400, "quantity", "quantity missing"));
        for (String n : List.of("", "0", "-1", "+5", "01", "1.5", "abc", "1000001", "99999999999999999999", "1e2")) {
            c.add(new Case("POST", "/buy?productId=" + buyProduct + "&quantity=" + n + "&" + okUser, 400, "quantity",
                    "quantity '" + n + "'"));
        }
        c.add(new Case("POST", "/buy?productId=" + buyProduct + "&quantity=1&quantity=1&" + okUser, 400, "quantity",
                "quantity given twice"));
        c.add(new Case("POST", "/sell?productId=" + sellProduct + "&quantity=0&price=50&" + okUser, 400, "quantity",
                "sell quantity 0"));
        c.add(new Case("GET", "/buy?productId=" + buyProduct + "&quantity=0&" + okUser, 400, "quantity",
                "GET /buy with quantity 0"));

        // price
        c.add(new Case("POST", sell + "&" + okUser, 400, "price", "sell without price"));
        for (String p : List.of("", "0", "0.00", "-1", "12.345", "1e3", ".5", "12.", "NaN", "Infinity", "abc",
                "1000000000.01", "12,5", "0x10")) {
            c.add(new Case("POST", sell + "&price=" + p + "&" + okUser, 400, "price", "sell price '" + p + "'"));
        }
        c.add(new Case("POST", sell + "&price=50&price=50&" + okUser, 400, "price", "sell price given twice"));
        c.add(new Case("GET", sell + "&price=12.345&" + okUser, 400, "price", "GET /sell with price 12.345"));
        for (String p : List.of("", "12.345", "-1", "0", "abc")) {
            c.add(new Case("POST", buy + "&price=" + p + "&" + okUser, 400, "price", "buy maxPrice '" + p + "'"));
        }

        // paths and methods
        c.add(new Case("POST", "/bogus?" + okUser, 404, null, "unknown path POST /bogus"));
        c.add(new Case("GET", "/nothing-here", 404, null, "unknown path GET /nothing-here"));
        c.add(new Case("POST", "/buy/extra?productId=" + buyProduct + q, 404, null, "unknown path /buy/extra"));
        c.add(new Case("PUT", buy + "&" + okUser, 405, null, "PUT /buy"));
        c.add(new Case("DELETE", sell + "&price=50&" + okUser, 405, null, "DELETE /sell"));
        c.add(new Case("POST", "/stats", 405, null, "POST /stats"));
        c.add(new Case("POST", "/health", 405, null, "POST /health"));

        // /orders/{id}
        for (String id : List.of("abc", "0", "-3", "1.5")) {
            c.add(new Case("GET", "/orders/" + id, 400, null, "/orders/" + id));
        }
        return c;
    }

    /** How many of the cases are orders refused with 400: the service's "rejected" counter must grow by at least this. */
    static long rejectedOrders(List<Case> cases) {
        return cases.stream().filter(k -> k.status() == 400 && (k.target().startsWith("/buy?") || k.target().startsWith("/sell?"))).count();
    }
}
