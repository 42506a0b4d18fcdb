package tradebench.spray.cluster;

import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.model.Side;
import tradebench.wire.OrderViews;

/**
 * The messages between cluster members (Jackson, {@link ClusterMessage}). The
 * single-process service's engine messages (engine-model's EngineProtocol)
 * carry engine-model's mutable {@link Order}; between members an order travels
 * as its immutable terms ({@link NewOrder}) and the entity makes its own Order.
 */
public final class ClusterProtocol {
    private ClusterProtocol() {
    }

    /** Messages the shard region routes to an engine partition (the entity id is the engine's number). */
    public sealed interface ToEngine extends ClusterMessage permits NewOrder, Wake, Crash, Find {
        int engine();
    }

    /** An accepted order for engine {@code engine}, already admitted against its issuer's INBOX_LIMIT. */
    public record NewOrder(int engine, long id, boolean buy, String userId, int productId, long quantity,
                           long priceCents, long arrivalMs) implements ToEngine {
        public static NewOrder of(int engine, Order o) {
            return new NewOrder(engine, o.id, o.side == Side.BUY, o.userId, o.productId, o.quantity, o.priceCents, o.arrivalMs);
        }

        public Order toOrder() {
            return new Order(id, buy ? Side.BUY : Side.SELL, userId, productId, quantity, priceCents, arrivalMs);
        }
    }

    /** Sent to every partition every second by every member: a partition whose member was lost starts again at once. */
    public record Wake(int engine) implements ToEngine {
    }

    /** Test-only (FAULTS=on): the partition's next cycle throws. */
    public record Crash(int engine) implements ToEngine {
    }

    /**
     * {@code GET /orders/{id}} of an order whose issuing member is gone: does
     * this partition hold it (open in its market, or arrived and not joined
     * yet)? Answered with {@link Held}, once the partition has read its
     * hand-over row (a handed-over order counts as held).
     */
    public record Find(int engine, long id) implements ToEngine {
    }

    /** The answer to {@link Find}: the order as the partition holds it, or null. */
    public record Held(EngineEntity.HeldOrder order) implements ClusterMessage {
    }

    /**
     * The stop message of the sharding hand-off (a member leaves, or the shard
     * is rebalanced): finish the cycle, store its sales, write the open orders
     * for the next incarnation, stop. Sent by the local shard only.
     */
    public enum HandOff implements ClusterMessage { INSTANCE }

    /**
     * From a partition to the member that issued the orders, after each cycle's
     * sales are stored: the orders of this member it joined (their inbox places
     * are free again), and those that left its market.
     */
    public record CycleReport(int engine, long[] joined, long[] timedOut, long[] filled) implements ClusterMessage {
    }

    /**
     * From a partition's new incarnation that found its predecessor gone
     * without handing over (its member crashed) to every member: the orders
     * of {@code engine} accepted before {@code sinceMs} that the member still
     * counts as open are lost.
     */
    public record EngineLost(int engine, long sinceMs) implements ClusterMessage {
    }

    /**
     * From a partition that has just handed over (after its last report) to
     * every member: Akka's hand-off drops the messages that were on their way
     * to the shard while it moved, so each member sends again the orders of
     * {@code engine} it accepted before {@code sinceMs} (when the hand-off
     * began) that no report has called joined. The next incarnation ignores
     * the copies of orders it already has.
     */
    public record HandedOff(int engine, long sinceMs) implements ClusterMessage {
    }

    /**
     * {@code GET /orders/{id}} asked of the member that issued the id: what it knows of the
     * order. The asking member reads the fills itself, through its own read path, after the
     * answer (OrderViews' order: the status first, then the fills).
     */
    public record ViewRequest(long id) implements ClusterMessage {
    }

    /**
     * The issuer's view of order {@code id} before its fills are read: its terms (null when it
     * no longer remembers the order), its status then (null when unknown), and whether the id
     * lies in the range it issued. {@code engine} in {@code order} is the order's partition.
     */
    public record ViewStatus(long id, NewOrder order, OrderStatus status, boolean issuedHere) implements ClusterMessage {
        public static ViewStatus of(OrderViews.Lookup l, int engines) {
            Order o = l.known();
            return new ViewStatus(l.id(), o == null ? null : NewOrder.of(o.productId % engines, o), l.status(), l.issuedHere());
        }

        public OrderViews.Lookup lookup() {
            return new OrderViews.Lookup(id, order == null ? null : order.toOrder(), status, issuedHere);
        }

        /** The issuer knows nothing of the order (a 404 unless SALES has fills for it). */
        public boolean unknownToIssuer() {
            return order == null && status == null && !issuedHere;
        }
    }

    /** {@code GET /stats}: every member's own figures, for the cluster's totals. */
    public enum StatsRequest implements ClusterMessage { INSTANCE }

    /** One member's counters; the arrays are per engine. */
    public record MemberStats(String member, long uptimeMs, long rejected, long overloaded, long salesLastMinute,
                              long[] accepted, long[] openOrders, long[] pendingOrders, long[] salesPersisted,
                              long[] cycles, long[] persistenceFailures, int[] hosted) implements ClusterMessage {
    }
}
