package tradebench.model;

/**
 * A sales order (SO) or a purchase order (PO).
 *
 * <p>The identity fields are final. {@code remaining} and the book-keeping
 * fields belong to the one engine that owns the order and are touched only by
 * its thread (or actor). {@code status} is volatile because request threads
 * read it for {@code /orders/{id}}.
 */
public final class Order {
    /** maxPrice of a purchase order without a limit. */
    public static final long NO_LIMIT = Long.MAX_VALUE;

    public final long id;
    public final Side side;
    public final String userId;
    public final int productId;
    public final long quantity;
    /** SO: its price; PO: its maxPrice, or {@link #NO_LIMIT}. Integer cents. */
    public final long priceCents;
    /** When the order arrived (ms); time-outs count from here. */
    public final long arrivalMs;

    long remaining;
    /** Join sequence within a market: arrival order, the tie-breaker of price-time priority. */
    long seq;
    /** Left the market (filled or timed out); books drop closed orders lazily. */
    boolean closed;
    private volatile OrderStatus status = OrderStatus.OPEN;

    public Order(long id, Side side, String userId, int productId, long quantity, long priceCents, long arrivalMs) {
        this.id = id;
        this.side = side;
        this.userId = userId;
        this.productId = productId;
        this.quantity = quantity;
        this.remaining = quantity;
        this.priceCents = priceCents;
        this.arrivalMs = arrivalMs;
    }

    public static Order sell(long id, String userId, int productId, long quantity, long priceCents, long arrivalMs) {
        return new Order(id, Side.SELL, userId, productId, quantity, priceCents, arrivalMs);
    }

    public static Order buy(long id, String userId, int productId, long quantity, long maxPriceCents, long arrivalMs) {
        return new Order(id, Side.BUY, userId, productId, quantity, maxPriceCents, arrivalMs);
    }

    /**
     * An order carried over from another market with {@code remaining} of its
     * quantity left (a partition handed from one process to another): it joins
     * the new market as it was, its arrival time (and so its time-out) unchanged.
     */
    public static Order resumed(long id, Side side, String userId, int productId, long quantity, long remaining,
                                long priceCents, long arrivalMs) {
        if (remaining < 1 || remaining > quantity) {
            throw new IllegalArgumentException("remaining " + remaining + " outside 1.." + quantity + " for order " + id);
        }
        Order o = new Order(id, side, userId, productId, quantity, priceCents, arrivalMs);
        o.remaining = remaining;
        return o;
    }

    /** A new, unjoined order with the same identity (replays run one scenario through several markets). */
    public Order fresh() {
        return new Order(id, side, userId, productId, quantity, priceCents, arrivalMs);
    }

    public long remaining() {
        return remaining;
    }

    public boolean hasLimit() {
        return priceCents != NO_LIMIT;
    }

    public OrderStatus status() {
        return status;
    }

    public void status(OrderStatus s) {
        this.status = s;
    }

    /** Would this PO buy at {@code priceCents}? */
    boolean accepts(long sellPriceCents) {
        return priceCents >= sellPriceCents;
    }

    @Override
    public String toString() {
        return side.wire() + "#" + id + "(" + userId + ", p" + productId + ", " + remaining + "/" + quantity
                + (side == Side.SELL || hasLimit() ? " @" + Prices.format(priceCents) : "") + ")";
    }
}
