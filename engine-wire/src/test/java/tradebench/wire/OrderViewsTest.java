package tradebench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.Fill;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderStatus;

/** The /orders/{id} rule of both Java HTTP stacks (and node-engine's). */
class OrderViewsTest {
    private final OrderRegistry registry = new OrderRegistry();
    private final IdSource ids = new IdSource(0);
    private final OrderGateway gateway = new OrderGateway(Config.from(Map.of("ENGINES", "1")), ids, registry,
            new ServiceStats("test", 1), (e, o) -> true);

    private static Fill fill(long po, long so, long quantity) {
        return new Fill(7, "b", "s", "3", 1050, quantity, po, so, 123);
    }

    @Test
    void theStatusIsTheOneReadBeforeTheFills() {
        Order po = Order.buy(ids.next(), "b", 3, 5, Order.NO_LIMIT, 0);
        registry.register(po);
        OrderViews.Lookup lookup = OrderViews.lookup(gateway, po.id);
        po.status(OrderStatus.TIMED_OUT); // changes after the lookup do not show
        OrderViews.Answer a = lookup.answer(List.of(fill(po.id, 9, 2)));
        assertEquals(200, a.status());
        assertEquals("{\"id\":" + po.id + ",\"side\":\"buy\",\"userId\":\"b\",\"productId\":\"3\",\"quantity\":5,"
                + "\"remaining\":3,\"status\":\"open\",\"fills\":[{\"saleId\":7,\"buyer\":\"b\",\"seller\":\"s\","
                + "\"productId\":\"3\",\"price\":10.5,\"quantity\":2,\"poId\":" + po.id + ",\"soId\":9,\"created\":123}]}", a.body());
    }

    @Test
    void anOpenOrderWhoseStoredFillsCoverItsQuantityIsShownFilled() {
        Order so = Order.sell(ids.next(), "s", 3, 5, 1050, 0);
        registry.register(so);
        String body = OrderViews.lookup(gateway, so.id).answer(List.of(fill(8, so.id, 2), fill(9, so.id, 3))).body();
        assertEquals(true, body.contains("\"remaining\":0,\"status\":\"filled\""), body);
        String partly = OrderViews.lookup(gateway, so.id).answer(List.of(fill(8, so.id, 2))).body();
        assertEquals(true, partly.contains("\"remaining\":3,\"status\":\"open\""), partly);
    }

    @Test
    void aLostOrderWhoseStoredFillsCoverItsQuantityIsFilled() {
        // cluster mode: its partition filled it on a member cut off from this one, whose new
        // incarnation then called it lost; the fills say it was a sale
        Order po = Order.buy(ids.next(), "b", 3, 2, Order.NO_LIMIT, 0);
        registry.register(po);
        registry.closed(po, OrderStatus.LOST);
        String full = OrderViews.lookup(gateway, po.id).answer(List.of(fill(po.id, 8, 1), fill(po.id, 9, 1))).body();
        assertEquals(true, full.contains("\"remaining\":0,\"status\":\"filled\""), full);
        String partly = OrderViews.lookup(gateway, po.id).answer(List.of(fill(po.id, 8, 1))).body();
        assertEquals(true, partly.contains("\"remaining\":1,\"status\":\"lost\""), partly);
    }

    @Test
    void anOrderOfAMemberThatIsGoneIsLostWithoutFillsAndUnknownWithThem() {
        OrderViews.Lookup gone = new OrderViews.Lookup(4242, null, OrderStatus.LOST, false);
        OrderViews.Answer none = gone.answer(List.of());
        assertEquals(200, none.status());
        assertEquals("{\"id\":4242,\"status\":\"lost\",\"fills\":[]}", none.body());
        // its quantity went with its member: fills never make it lost, they may have covered it
        String traded = gone.answer(List.of(fill(4242, 9, 1))).body();
        assertEquals(true, traded.startsWith("{\"id\":4242,\"status\":\"unknown\",\"fills\":[{"), traded);
    }

    @Test
    void anOrderNobodyKnowsIs404UnlessIssuedHereOrStored() {
        long forgotten = ids.next(); // issued by this process, no longer in the registry
        assertEquals("{\"id\":" + forgotten + ",\"status\":\"unknown\",\"fills\":[]}",
                OrderViews.lookup(gateway, forgotten).answer(List.of()).body());
        OrderViews.Answer never = OrderViews.lookup(gateway, 42).answer(List.of());
        assertEquals(404, never.status());
        assertEquals("{\"error\":\"no such order: 42\"}", never.body());
        assertEquals(200, OrderViews.lookup(gateway, 42).answer(List.of(fill(42, 43, 1))).status(), "a stored order of an earlier run");
    }

    @Test
    void anIdIsAPositiveInteger() throws BadRequest {
        assertEquals(12, OrderViews.parseId("12"));
        for (String bad : new String[] {"", "0", "-1", "1e3", "abc", "1234567890123456789"}) {
            assertThrows(BadRequest.class, () -> OrderViews.parseId(bad), bad);
        }
    }
}
