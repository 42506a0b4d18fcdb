package tradebench.spray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderStatus;

/** The issuer's side of cluster mode: inbox places, statuses from the partitions' reports, lost partitions. */
class DeskTest {
    private final OrderRegistry registry = new OrderRegistry();
    private final ServiceStats stats = new ServiceStats("t", 2);
    private final Desk desk = new Desk(2, 3, registry, stats);

    private Order order(long id, long arrivalMs) {
        Order o = Order.sell(id, "u", 1, 5, 1000, arrivalMs);
        registry.register(o);
        return o;
    }

    private static long[] ids(long... a) {
        return a;
    }

    @Test
    void inboxPlacesAreFreedWhenThePartitionReportsTheOrdersJoined() {
        for (int i = 1; i <= 3; i++) assertTrue(desk.admit(1, order(i, 0)));
        assertFalse(desk.admit(1, order(4, 0)), "INBOX_LIMIT 3 per engine");
        assertTrue(desk.admit(0, order(5, 0)), "another engine has its own places");
        assertEquals(3, stats.engine(1).pendingOrders());
        desk.report(new ClusterProtocol.CycleReport(1, ids(1, 2), ids(), ids()));
        assertEquals(1, stats.engine(1).pendingOrders());
        assertEquals(2, desk.inFlight());
        assertTrue(desk.admit(1, order(6, 0)));
    }

    @Test
    void statusesComeFromTheReports() {
        Order a = order(1, 0), b = order(2, 0);
        desk.admit(0, a);
        desk.admit(0, b);
        desk.report(new ClusterProtocol.CycleReport(0, ids(1, 2), ids(2), ids(1)));
        assertEquals(OrderStatus.FILLED, a.status());
        assertEquals(OrderStatus.TIMED_OUT, b.status());
        assertEquals(0, desk.inFlight());
    }

    @Test
    void aLostPartitionLosesTheOrdersOpenOrInFlightThereAndNoOthers() {
        Order joined = order(1, 100), onTheWay = order(2, 200), later = order(3, 5000), elsewhere = order(4, 100);
        desk.admit(1, joined);
        desk.admit(1, onTheWay);
        desk.admit(1, later);
        desk.admit(0, elsewhere);
        desk.report(new ClusterProtocol.CycleReport(1, ids(1), ids(), ids()));
        assertEquals(2, desk.lost(1, 1000));
        assertEquals(OrderStatus.LOST, joined.status());
        assertEquals(OrderStatus.LOST, onTheWay.status());
        assertEquals(OrderStatus.OPEN, later.status(), "accepted after the new incarnation started");
        assertEquals(OrderStatus.OPEN, elsewhere.status());
        assertEquals(1, stats.engine(1).pendingOrders(), "the lost order's place is free again");
        // an order counted lost that reached the new incarnation after all comes back, and can fill
        desk.report(new ClusterProtocol.CycleReport(1, ids(2), ids(), ids()));
        assertEquals(OrderStatus.OPEN, onTheWay.status());
        desk.report(new ClusterProtocol.CycleReport(1, ids(), ids(), ids(2)));
        assertEquals(OrderStatus.FILLED, onTheWay.status());
        assertEquals(1, stats.engine(1).pendingOrders(), "a revived order frees no second place");
    }

    @Test
    void afterAHandOverTheOrdersNeverReportedJoinedAndAcceptedBeforeItAreSentAgain() {
        Order joined = order(1, 100), dropped = order(2, 200), after = order(3, 900);
        desk.admit(1, joined);
        desk.admit(1, dropped);
        desk.admit(1, after);
        desk.report(new ClusterProtocol.CycleReport(1, ids(1), ids(), ids()));
        java.util.List<Long> sent = new java.util.ArrayList<>();
        assertEquals(1, desk.resend(1, 500, (e, o) -> {
            assertEquals(1, e);
            sent.add(o.id);
        }));
        assertEquals(java.util.List.of(2L), sent, "joined ones are the partition's, later ones are still on their way");
        assertEquals(0, desk.resend(0, 500, (e, o) -> sent.add(o.id)));
    }
}
