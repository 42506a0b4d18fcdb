package tradebench.loadclient;

import java.util.SplittableRandom;

/**
 * The random orders of contract section 6: half buys, half sells; product uniform
 * over {@code products}; quantity uniform 1..10; sell price uniform
 * 10.00..200.00 in cents; buys without a price; user {@code b<k>} / {@code s<k>}
 * with k uniform over {@code users} (0..users-1), behind an optional prefix
 * (the verifier makes its users unique to the run).
 */
public final class OrderMix {

    public static final int MIN_PRICE_CENTS = 1_000;
    public static final int MAX_PRICE_CENTS = 20_000;

    private final int products;
    private final int users;
    private final String userPrefix;

    public OrderMix(int products, int users, String userPrefix) {
        if (products < 1 || users < 1) throw new IllegalArgumentException("products and users must be >= 1");
        this.products = products;
        this.users = users;
        this.userPrefix = userPrefix;
    }

    public OrderMix(int products, int users) {
        this(products, users, "");
    }

    /** One order; {@code priceCents} is -1 for a buy (no limit). */
    public record Order(boolean buy, String userId, int productId, int quantity, long priceCents) {

        /** The request target, e.g. {@code /sell?userId=s7&productId=3&quantity=2&price=17.05}. */
        public String target() {
            StringBuilder sb = new StringBuilder(80);
            sb.append(buy ? "/buy" : "/sell").append("?userId=").append(userId)
                    .append("&productId=").append(productId).append("&quantity=").append(quantity);
            if (priceCents >= 0) sb.append("&price=").append(formatCents(priceCents));
            return sb.toString();
        }
    }

    public Order next(SplittableRandom rnd) {
        boolean buy = rnd.nextBoolean();
        int product = rnd.nextInt(products);
        int quantity = 1 + rnd.nextInt(10);
        int k = rnd.nextInt(users);
        long price = buy ? -1 : MIN_PRICE_CENTS + rnd.nextInt(MAX_PRICE_CENTS - MIN_PRICE_CENTS + 1);
        return new Order(buy, userPrefix + (buy ? "b" : "s") + k, product, quantity, price);
    }

    /** 1234 -> "12.34", 1200 -> "12.00" (always two decimals, as a seller would type it). */
    public static String formatCents(long cents) {
        long whole = cents / 100;
        int frac = (int) (cents % 100);
        return whole + (frac < 10 ? ".0" : ".") + frac;
    }
}
