package tradebench.loadclient.reliability;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The bad-input phase's requests, generated: every order parameter missing,
 * empty, repeated and with hostile values (huge, negative, fractional,
 * non-numeric, NaN, Infinity, over-long and non-ASCII user ids, SQL and script
 * fragments), each for buy and sell, sent as POST with a query string, GET, and
 * POST with a form body; long URLs; unknown paths and methods. Every one must be
 * refused with a 4xx and a JSON {@code {"error": ...}}. {@link #garbage} are raw
 * byte sequences for the socket (a 4xx or a closed connection, never a 5xx).
 */
final class MalformedRequests {

    /** One request; {@code form} non-null: sent as an application/x-www-form-urlencoded body. */
    record Request(String method, String target, String form, String what) {}

    /**
     * Raw bytes; {@code versionProbe}: an unknown HTTP version, where 505 (HTTP Version Not Supported,
     * RFC 9110) is the protocol's own refusal and accepted beside a 4xx or a close.
     */
    record Garbage(byte[] bytes, String what, boolean versionProbe) {
        Garbage(byte[] bytes, String what) {
            this(bytes, what, false);
        }
    }

    private static final List<String> HOSTILE = List.of(
            "'; DROP TABLE SALES; --", "1 OR 1=1", "1' OR '1'='1", "\" OR \"\"=\"", "1; SELECT SLEEP(5)",
            "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "${jndi:ldap://x/a}", "{{7*7}}",
            "../../etc/passwd", "%00", "\u0000", "\r\nX-Injected: 1", " ", "null", "undefined", "true", "[]", "{}");

    private static final List<String> NUMBERS = List.of(
            "-1", "-0", "-1000000", "1.5", "0.5", "1.0", "1e3", "1E2", "0x10", "abc", "NaN", "Infinity", "-Infinity",
            "+1", "01", "1,5", "9223372036854775808", "99999999999999999999", "1" + "0".repeat(400), "1e400", "½", "١");

    private MalformedRequests() {}

    static List<Request> orders(String prefix, int products) {
        return orders(prefix, products, true);
    }

    /**
     * {@code protocol}: include what a server's HTTP layer may refuse before the application sees it
     * (malformed percent-encoding in the path or query); the tests' fake market on the JDK's HttpServer leaves it out.
     */
    static List<Request> orders(String prefix, int products, boolean protocol) {
        List<Request> out = new ArrayList<>();
        String user = prefix + "bad";
        for (String side : List.of("buy", "sell")) {
            Map<String, String> ok = new LinkedHashMap<>();
            ok.put("userId", user);
            ok.put("productId", product(side));
            ok.put("quantity", "2");
            if (side.equals("sell")) ok.put("price", "50.00");
            // userId
            List<String> userValues = new ArrayList<>(List.of("", "a".repeat(65), "b".repeat(1000), user + " x",
                    user + "é", "用户", "😀", "ü" + "x".repeat(63), user + "/x", user + "+x", user + "@x", user + "\t"));
            // a hostile value that happens to be a valid user id ("null", "true") would be accepted, rightly
            for (String v : HOSTILE) if (!v.matches("[A-Za-z0-9_.-]{1,64}")) userValues.add(v);
            for (String v : userValues) addAllMethods(out, side, ok, "userId", v);
            // productId, quantity
            for (String p : List.of("productId", "quantity")) {
                List<String> values = new ArrayList<>(NUMBERS);
                values.add("");
                values.addAll(HOSTILE.subList(0, 8));
                values.add(p.equals("productId") ? Integer.toString(products) : "0");
                values.add(p.equals("productId") ? "1000000" : "1000001");
                for (String v : values) addAllMethods(out, side, ok, p, v);
            }
            // price (a sell's price, a buy's maxPrice); a buy may omit it, so "missing" is a sell case only
            List<String> prices = new ArrayList<>(List.of("", "0", "0.00", "-1", "-0.01", "12.345", "0.001", ".5", "12.",
                    "1e3", "NaN", "Infinity", "-Infinity", "abc", "1000000000.01", "99999999999999999999", "1e400",
                    "12,5", "0x10", "1_000"));
            prices.addAll(HOSTILE.subList(0, 6));
            for (String v : prices) addAllMethods(out, side, withPrice(ok), "price", v);
        }
        // missing and repeated parameters
        for (String side : List.of("buy", "sell")) {
            Map<String, String> ok = new LinkedHashMap<>();
            ok.put("userId", user);
            ok.put("productId", product(side));
            ok.put("quantity", "2");
            ok.put("price", "50.00");
            for (String p : ok.keySet()) {
                if (p.equals("price") && side.equals("buy")) continue;
                Map<String, String> m = new LinkedHashMap<>(ok);
                m.remove(p);
                out.add(new Request("POST", "/" + side + "?" + query(m), null, side + " without " + p));
                out.add(new Request("GET", "/" + side + "?" + query(m), null, "GET " + side + " without " + p));
                out.add(new Request("POST", "/" + side, query(m), side + " (form) without " + p));
                String repeated = query(ok) + "&" + p + "=" + enc(ok.get(p));
                out.add(new Request("POST", "/" + side + "?" + repeated, null, side + " with " + p + " twice"));
                out.add(new Request("POST", "/" + side + "?" + query(ok), p + "=" + enc(ok.get(p)),
                        side + " with " + p + " in the query and the form"));
            }
            out.add(new Request("POST", "/" + side, null, side + " without any parameter"));
            out.add(new Request("POST", "/" + side + "?", null, side + " with an empty query"));
            out.add(new Request("POST", "/" + side + "?&&&==&", null, side + " with a query of separators"));
            if (protocol) {
                out.add(new Request("POST", "/" + side + "?userId=%zz&productId=" + product(side) + "&quantity=1&price=1", null,
                        side + " with malformed percent-encoding"));
                out.add(new Request("POST", "/" + side + "?userId=%E9&productId=" + product(side) + "&quantity=1&price=1", null,
                        side + " with a userId that is not UTF-8"));
            }
        }
        // long URLs (the order is bad: an unknown long parameter alone would be ignored, contract section 3)
        for (int len : List.of(1000, 4000, 7000)) {
            out.add(new Request("POST", "/buy?productId=1&quantity=1&junk=" + "j".repeat(len), null,
                    "a " + len + "-character URL without userId"));
            out.add(new Request("POST", "/sell?userId=" + user + "&productId=2&quantity=1&price=" + "9".repeat(len), null,
                    "a " + len + "-digit price"));
        }
        // unknown paths
        for (String path : List.of("/", "/buy/", "/BUY", "/Buy", "/buy/1", "/sell/", "/orders", "/orders/", "/stats/",
                "/health/x", "/buy;jsessionid=1", "/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/index.html",
                "/admin", "/buy.json", "/faults", "/" + "x".repeat(3000), "/%00")) {
            out.add(new Request("POST", path + "?userId=" + user + "&productId=1&quantity=1", null, "unknown path " + path));
            out.add(new Request("GET", path, null, "GET unknown path " + path));
        }
        if (protocol) {
            out.add(new Request("POST", "/%zz", null, "unknown path /%zz (malformed percent-encoding)"));
            out.add(new Request("GET", "/%zz", null, "GET unknown path /%zz (malformed percent-encoding)"));
        }
        // wrong methods on known paths
        for (String m : List.of("PUT", "DELETE", "PATCH", "FOO")) {
            for (String path : List.of("/buy?userId=" + user + "&productId=1&quantity=1",
                    "/sell?userId=" + user + "&productId=2&quantity=1&price=5", "/stats", "/health", "/orders/1")) {
                out.add(new Request(m, path, null, m + " " + path));
            }
        }
        out.add(new Request("POST", "/stats", null, "POST /stats"));
        out.add(new Request("POST", "/health", null, "POST /health"));
        out.add(new Request("POST", "/orders/1", null, "POST /orders/1"));
        for (String id : List.of("abc", "0", "-3", "1.5", "NaN", "Infinity", "1e5", "9".repeat(40), "%27%20OR%201=1")) {
            out.add(new Request("GET", "/orders/" + id, null, "GET /orders/" + id));
        }
        return out;
    }

    /**
     * Bad buys name product 1, bad sells product 2: the phase first places a counter sell on 1 (at the
     * highest price) and a counter buy on 2 (no limit), so a bad order that got into a market trades and shows in SALES.
     */
    static String product(String side) {
        return side.equals("buy") ? "1" : "2";
    }

    private static Map<String, String> withPrice(Map<String, String> ok) {
        Map<String, String> m = new LinkedHashMap<>(ok);
        m.putIfAbsent("price", "50.00");
        return m;
    }

    private static void addAllMethods(List<Request> out, String side, Map<String, String> ok, String param, String value) {
        Map<String, String> m = new LinkedHashMap<>(ok);
        m.put(param, value);
        String q = query(m);
        String what = side + " " + param + "=" + shorten(value);
        out.add(new Request("POST", "/" + side + "?" + q, null, what));
        out.add(new Request("GET", "/" + side + "?" + q, null, "GET " + what));
        out.add(new Request("POST", "/" + side, q, what + " (form body)"));
    }

    static String query(Map<String, String> m) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : m.entrySet()) {
            if (sb.length() > 0) sb.append('&');
            sb.append(e.getKey()).append('=').append(enc(e.getValue()));
        }
        return sb.toString();
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String shorten(String s) {
        String t = s.length() > 24 ? s.substring(0, 20) + "...(" + s.length() + ")" : s;
        return t.replace("\r", "\\r").replace("\n", "\\n").replace("\u0000", "\\0");
    }

    /** Raw bytes on a fresh socket: a 4xx or a closed connection, never a 5xx, never a dead service. */
    static List<Garbage> garbage(String host, long seed) {
        List<Garbage> g = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int n : new int[] {1, 16, 512, 4096}) {
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) b[i] = (byte) rnd.nextInt(256);
            g.add(new Garbage(b, n + " random bytes"));
        }
        String h = "Host: " + host + "\r\n";
        for (String s : List.of(
                "\r\n\r\n",
                "GARBAGE\r\n\r\n",
                "GET\r\n\r\n",
                "GET /health HTTP/1.1\r\nno colon here\r\n\r\n",
                "POST /buy?userId=a&productId=1&quantity=1 HTTP/1.1\r\n" + h + "Content-Length: -1\r\n\r\n",
                "POST /buy?userId=a&productId=1&quantity=1 HTTP/1.1\r\n" + h + "Content-Length: abc\r\n\r\n",
                "POST /buy HTTP/1.1\r\n" + h + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nuserId=a\r\n0\r\n\r\n",
                "POST /buy HTTP/1.1\r\n" + h + "Content-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg",
                "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
                "GET /buy?userId=\u00e9\u00e8&productId=1&quantity=1 HTTP/1.1\r\n" + h + "\r\n",
                "GET /\u0000\u0001\u0002 HTTP/1.1\r\n" + h + "\r\n",
                "GET /health HTTP/1.1\r\n" + h + "X-Big: " + "x".repeat(100_000) + "\r\n\r\n",
                "GET /buy?" + "x".repeat(100_000) + " HTTP/1.1\r\n" + h + "\r\n")) {
            g.add(new Garbage(s.getBytes(StandardCharsets.ISO_8859_1), shorten(s.replace("\r\n", " | "))));
        }
        g.add(new Garbage(("GET /health HTTP/9.9\r\n" + h + "\r\n").getBytes(StandardCharsets.ISO_8859_1),
                "GET /health HTTP/9.9", true));
        g.add(new Garbage(new byte[] {0x16, 0x03, 0x01, 0x00, (byte) 0xa5, 0x01, 0x00, 0x00, (byte) 0xa1, 0x03, 0x03},
                "a TLS ClientHello"));
        return g;
    }
}
