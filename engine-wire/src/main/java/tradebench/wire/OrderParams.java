package tradebench.wire;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import tradebench.engine.OrderRequest;
import tradebench.model.Order;
import tradebench.model.Side;

/**
 * The parameters of {@code /buy} and {@code /sell} (contract section 3): the
 * same rules, in the same order, answered with the same 400 messages by both
 * Java HTTP stacks.
 */
public final class OrderParams {
    public static final int MAX_QUANTITY = 1_000_000;
    public static final long MAX_PRICE_CENTS = 1_000_000_000L * 100;

    private OrderParams() {
    }

    /**
     * @param params the values of a parameter (query string and form body), or null/empty when absent
     */
    public static OrderRequest parse(Side side, Function<String, List<String>> params, int products) throws BadRequest {
        String userId = single(params, "userId");
        if (userId == null) throw new BadRequest("userId is missing");
        if (!validUserId(userId)) {
            throw new BadRequest("userId must be 1..64 characters of A-Z a-z 0-9 _ . -");
        }
        String product = single(params, "productId");
        if (product == null) throw new BadRequest("productId is missing");
        long productId = naturalNumber(product, 7);
        if (productId < 0 || productId >= products) {
            throw new BadRequest("productId must be an integer in 0.." + (products - 1) + " (unknown product)");
        }
        String qty = single(params, "quantity");
        if (qty == null) throw new BadRequest("quantity is missing");
        long quantity = naturalNumber(qty, 7);
        if (quantity < 1 || quantity > MAX_QUANTITY) {
            throw new BadRequest("quantity must be an integer in 1.." + MAX_QUANTITY);
        }
        String price = single(params, "price");
        long cents;
        if (price == null) {
            if (side == Side.SELL) throw new BadRequest("price is missing");
            cents = Order.NO_LIMIT;
        } else {
            cents = priceCents(price);
            if (cents <= 0 || cents > MAX_PRICE_CENTS) {
                throw new BadRequest("price must be a number in (0, 1000000000] with at most 2 decimals");
            }
        }
        return new OrderRequest(side, userId, (int) productId, (int) quantity, cents);
    }


    /** More parameters than this in a query string: {@link #plainQuery} leaves it to the container. */
    static final int PLAIN_MAX_PARAMETERS = 32;

    /**
     * The parameters of a query string that needs no decoding — only {@code A-Z a-z 0-9 . _ - ~},
     * {@code =} and {@code &}, as every load client and 2014 client sends — split as a servlet
     * container splits it: on {@code &}, name before the first {@code =}, the value after it
     * ({@code ""} without one), empty names dropped, repeated names kept in order. Null for any
     * other query string (percent-escapes, {@code +}, other characters, more than
     * {@value #PLAIN_MAX_PARAMETERS} parameters): the container's own parser decides those.
     * An empty or null query has no parameters.
     */
    public static Function<String, List<String>> plainQuery(String query) {
        Map<String, List<String>> params = new HashMap<>(8);
        if (query == null || query.isEmpty()) return params::get;
        int n = query.length();
        for (int i = 0; i < n; i++) {
            char c = query.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || c == '~' || c == '=' || c == '&';
            if (!plain) return null;
        }
        int count = 0;
        for (int start = 0; start <= n; ) {
            int end = query.indexOf('&', start);
            if (end < 0) end = n;
            if (end > start) {
                if (++count > PLAIN_MAX_PARAMETERS) return null;
                int eq = query.indexOf('=', start);
                String name = eq < 0 || eq > end ? query.substring(start, end) : query.substring(start, eq);
                String value = eq < 0 || eq > end ? "" : query.substring(eq + 1, end);
                if (!name.isEmpty()) params.computeIfAbsent(name, k -> new ArrayList<>(1)).add(value);
            }
            start = end + 1;
        }
        return params::get;
    }

    /** The one value of a parameter; null when absent; 400 when given twice. */
    private static String single(Function<String, List<String>> params, String name) throws BadRequest {
        List<String> v = params.apply(name);
        if (v == null || v.isEmpty()) return null;
        if (v.size() > 1) throw new BadRequest("parameter " + name + " given more than once");
        return v.get(0);
    }

    static boolean validUserId(String s) {
        int n = s.length();
        if (n < 1 || n > 64) return false;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == '-';
            if (!ok) return false;
        }
        return true;
    }

    /** Digits without sign or leading zero; -1 when malformed or longer than maxDigits. */
    private static long naturalNumber(String s, int maxDigits) {
        int n = s.length();
        if (n == 0 || n > maxDigits || (n > 1 && s.charAt(0) == '0')) return -1;
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** "12", "12.5", "12.50" to cents; -1 when malformed (".5", "12.", "1e3", "-1", "NaN", 3 decimals). */
    private static long priceCents(String s) {
        int dot = s.indexOf('.');
        String whole = dot < 0 ? s : s.substring(0, dot);
        String frac = dot < 0 ? "" : s.substring(dot + 1);
        if (whole.isEmpty() || whole.length() > 10 || (dot >= 0 && (frac.isEmpty() || frac.length() > 2))) return -1;
        long w = 0;
        for (int i = 0; i < whole.length(); i++) {
            char c = whole.charAt(i);
            if (c < '0' || c > '9') return -1;
            w = w * 10 + (c - '0');
        }
        long f = 0;
        for (int i = 0; i < 2; i++) {
            char c = i < frac.length() ? frac.charAt(i) : '0';
            if (c < '0' || c > '9') return -1;
            f = f * 10 + (c - '0');
        }
        return w * 100 + f;
    }
}
