package tradebench.engine;

import java.util.concurrent.ConcurrentHashMap;
import tradebench.model.Order;
import tradebench.model.OrderStatus;

/**
 * The orders this process remembers, for {@code /orders/{id}}: every open one,
 * and the most recent closed ones (filled or timed out) up to a bound, so
 * memory stays flat under any load. Engines write statuses; request threads read.
 */
public final class OrderRegistry {
    public static final int DEFAULT_CLOSED_KEPT = 200_000;

    private final ConcurrentHashMap<Long, Order> orders = new ConcurrentHashMap<>();
    /**
     * The ids of the kept closed orders, oldest first from {@link #closedNext} (a ring: no node
     * or boxed id per closed order for the collector to copy; guarded by itself).
     */
    private final long[] closedIds;
    private int closedNext;
    private int closedCount;

    public OrderRegistry() {
        this(DEFAULT_CLOSED_KEPT);
    }

    public OrderRegistry(int closedKept) {
        this.closedIds = new long[closedKept];
    }

    public void register(Order o) {
        orders.put(o.id, o);
    }

    /** The order never reached an engine (refused with 503): forget it. */
    public void unregister(Order o) {
        orders.remove(o.id);
    }

    public Order find(long id) {
        return orders.get(id);
    }

    /** The order left the market: keep it among the recent closed ones. */
    public void closed(Order o, OrderStatus status) {
        o.status(status);
        if (closedIds.length == 0) {
            orders.remove(o.id);
            return;
        }
        long oldest;
        synchronized (closedIds) {
            oldest = closedCount == closedIds.length ? closedIds[closedNext] : -1;
            if (oldest < 0) closedCount++;
            closedIds[closedNext] = o.id;
            closedNext = (closedNext + 1) % closedIds.length;
        }
        if (oldest >= 0) orders.remove(oldest);
    }

    public int size() {
        return orders.size();
    }
}
