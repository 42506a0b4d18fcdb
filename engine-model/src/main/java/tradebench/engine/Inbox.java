package tradebench.engine;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import tradebench.model.Order;

/**
 * The orders that arrived for one engine since its last cycle (the original's
 * newPurchaseOrders / newSalesOrders). Request threads add without a lock; the
 * engine takes everything at the start of a cycle, so nothing is shared while
 * the market trades.
 */
public final class Inbox {
    private final ConcurrentLinkedQueue<Order> queue = new ConcurrentLinkedQueue<>();
    private final InboxLimit limit;

    public Inbox(int limit) {
        this.limit = new InboxLimit(limit);
    }

    /** False when the inbox is full (the caller answers 503). */
    public boolean offer(Order o) {
        if (!limit.tryAdmit()) return false;
        queue.add(o);
        return true;
    }

    /** Moves every waiting order, in arrival order, to {@code out}; returns how many. */
    public int drainTo(List<Order> out) {
        int n = 0;
        Order o;
        while ((o = queue.poll()) != null) {
            out.add(o);
            n++;
        }
        limit.release(n);
        return n;
    }

    public int pending() {
        return limit.pending();
    }

    public boolean isEmpty() {
        return queue.isEmpty();
    }
}
