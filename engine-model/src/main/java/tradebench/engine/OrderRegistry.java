package tradebench.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
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
    private final ConcurrentLinkedQueue<Long> closed = new ConcurrentLinkedQueue<>();
    private final AtomicInteger closedCount = new AtomicInteger();
    private final int closedKept;

    public OrderRegistry() {
        this(DEFAULT_CLOSED_KEPT);
    }

    public OrderRegistry(int closedKept) {
        this.closedKept = closedKept;
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
        closed.add(o.id);
        if (closedCount.incrementAndGet() > closedKept) {
            Long oldest = closed.poll();
            if (oldest != null) {
                closedCount.decrementAndGet();
                orders.remove(oldest);
            }
        }
    }

    public int size() {
        return orders.size();
    }
}
