package tradebench.testing;

import java.util.List;

/**
 * The order requests every Java variant's HTTP tests send: one table for all
 * (engine-servlet's ApiServletIT, java-spray-async's ApiRoutesIT), so that a
 * case added for one front is checked on every front.
 */
public final class BadInput {
    private BadInput() {}

    /** A request and the exact JSON error body contract section 3 gives it (400). */
    public record Case(String method, String uri, String body) {}

    /** Each refused with 400 and its rule named; none reaches an engine. */
    public static final List<Case> REFUSED = List.of(
        new Case("GET", "/buy?userId=b1&productId=7&quantity=0",
                "{\"error\":\"quantity must be an integer in 1..1000000\"}"),
        new Case("GET", "/sell?userId=s1&productId=7&quantity=1", "{\"error\":\"price is missing\"}"),
        new Case("GET", "/sell?userId=s%201&productId=7&quantity=1&price=1",
                "{\"error\":\"userId must be 1..64 characters of A-Z a-z 0-9 _ . -\"}"),
        new Case("POST", "/buy?userId=b1&productId=100&quantity=5",
                "{\"error\":\"productId must be an integer in 0..99 (unknown product)\"}"),
        new Case("GET", "/buy?userId=b1&productId=1&quantity=1&quantity=2",
                "{\"error\":\"parameter quantity given more than once\"}"),
        new Case("GET", "/buy?userId=b1&productId=1&quantity=1&price=1.234",
                "{\"error\":\"price must be a number in (0, 1000000000] with at most 2 decimals\"}"));

    /**
     * The same order written plainly and with percent-escapes (which make the
     * HTTP server parse the query instead of the fast path): both accepted
     * (202), and both reach the engine as the same order.
     */
    public static final List<String[]> SAME_ORDER_PLAIN_AND_ESCAPED = List.of(
        new String[] {"/sell?userId=s1&productId=7&quantity=5&price=10.50", "/sell?userId=%731&productId=7&quantity=5&price=10%2E50"},
        new String[] {"/buy?userId=b1&&productId=7&quantity=3&=x&flag", "/buy?userId=b%31&&productId=7&quantity=3&=x&flag"},
        new String[] {"/buy?userId=b.1-x_&productId=0&quantity=1000000&price=1", "/buy?userId=b.1-x%5F&productId=0&quantity=1000000&price=1"});

    /** Bad orders written plainly and with percent-escapes: both 400 with the same body. */
    public static final List<String[]> REFUSED_PLAIN_AND_ESCAPED = List.of(
        new String[] {"/buy?userId=b1&productId=7&quantity=3&quantity=4", "/buy?userId=b1&productId=7&quantity=3&quantity=%34"},
        new String[] {"/buy?userId=&productId=7&quantity=3", "/buy?userId=&productId=%37&quantity=3"},
        new String[] {"/sell?userId=s1&productId=7&quantity=3&price=", "/sell?userId=s1&productId=%37&quantity=3&price="},
        new String[] {"/buy?productId=7&quantity=3", "/buy?productId=%37&quantity=3"},
        new String[] {"/buy?userId=b1=2&productId=7&quantity=3", "/buy?userId=b1%3D2&productId=7&quantity=3"},
        new String[] {"/buy?userId=b~1&productId=7&quantity=3", "/buy?userId=b%7E1&productId=7&quantity=3"});
}
