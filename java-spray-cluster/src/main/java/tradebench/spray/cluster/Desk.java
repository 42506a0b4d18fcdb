package tradebench.spray.cluster;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderStatus;

/**
 * What one member knows of the orders it accepted, wherever their partition
 * runs: the issuer's side of cluster mode. Request threads admit orders
 * ({@link #admit}); the member's {@link DeskActor} applies what the partitions
 * report ({@link #report}, {@link #lost}). Thread-safe.
 *
 * <p>Per engine, an order is first in flight (admitted, counted against the
 * engine's INBOX_LIMIT here, not yet joined), then open (joined by the
 * partition, wherever it runs), then closed in the registry: filled, timed
 * out, or lost (its partition's member crashed). {@code /orders/{id}} reads
 * the registry's status, as in the single-process service.
 */
public final class Desk {
    private final OrderRegistry registry;
    private final InboxLimit[] limits;
    private final Map<Long, Order>[] inFlight;
    private final Map<Long, Order>[] open;

    // an array of a generic type can only be created raw
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Desk(int engines, int inboxLimit, OrderRegistry registry, ServiceStats stats) {
        this.registry = registry;
        this.limits = new InboxLimit[engines];
        this.inFlight = new Map[engines];
        this.open = new Map[engines];
        for (int e = 0; e < engines; e++) {
            InboxLimit limit = new InboxLimit(inboxLimit);
            limits[e] = limit;
            stats.engine(e).pendingFrom(limit::pending); // /stats pendingOrders: admitted here, not joined yet
            inFlight[e] = new ConcurrentHashMap<>();
            open[e] = new ConcurrentHashMap<>();
        }
    }

    /** From a request's thread: false (503) when the engine's inbox is full; else the order is in flight. */
    public boolean admit(int engine, Order o) {
        if (!limits[engine].tryAdmit()) return false;
        inFlight[engine].put(o.id, o);
        return true;
    }

    /** A partition's report of one cycle (from the member that runs it). */
    void report(ClusterProtocol.CycleReport r) {
        int e = r.engine();
        for (long id : r.joined()) {
            Order o = inFlight[e].remove(id);
            if (o != null) {
                limits[e].release(1);
                open[e].put(id, o);
            } else {
                revive(e, id);
            }
        }
        for (long id : r.timedOut()) close(e, id, OrderStatus.TIMED_OUT);
        for (long id : r.filled()) close(e, id, OrderStatus.FILLED);
    }

    /**
     * An order already counted lost was joined after all: it was on its way
     * when the partition's member crashed and reached the new incarnation.
     */
    private void revive(int e, long id) {
        Order o = registry.find(id);
        if (o != null && o.status() == OrderStatus.LOST) {
            o.status(OrderStatus.OPEN);
            open[e].put(id, o);
        }
    }

    private void close(int e, long id, OrderStatus status) {
        Order o = open[e].remove(id);
        if (o == null) {
            o = inFlight[e].remove(id);
            if (o != null) limits[e].release(1);
        }
        if (o == null) o = registry.find(id); // counted lost before: the partition says otherwise
        if (o != null) registry.closed(o, status);
    }

    /**
     * Engine {@code e}'s partition was lost with its member: every order of
     * this member still open or in flight there, accepted before
     * {@code sinceMs}, is lost. Returns how many.
     */
    int lost(int e, long sinceMs) {
        int n = 0;
        for (Map<Long, Order> m : List.of(inFlight[e], open[e])) {
            for (Iterator<Order> it = m.values().iterator(); it.hasNext(); ) {
                Order o = it.next();
                if (o.arrivalMs >= sinceMs) continue;
                it.remove();
                if (m == inFlight[e]) limits[e].release(1);
                registry.closed(o, OrderStatus.LOST);
                n++;
            }
        }
        return n;
    }

    /**
     * Engine {@code e}'s partition handed over at {@code sinceMs}: the orders
     * accepted here before then that it never reported joined are sent again
     * ({@code send}); the partition's next incarnation drops a copy of an order
     * it already has. Returns how many.
     */
    int resend(int e, long sinceMs, java.util.function.BiConsumer<Integer, Order> send) {
        int n = 0;
        for (Order o : inFlight[e].values()) {
            if (o.arrivalMs < sinceMs) {
                send.accept(e, o);
                n++;
            }
        }
        return n;
    }

    /** Orders admitted here that no partition has reported joined yet. */
    public int inFlight() {
        int n = 0;
        for (Map<Long, Order> m : inFlight) n += m.size();
        return n;
    }
}
