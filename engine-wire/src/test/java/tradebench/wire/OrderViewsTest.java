package tradebench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
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

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void aViewFieldByField() throws Exception {
        Order so = Order.sell(ids.next(), "s-1.x", 12, 5, 1000, 0);
        registry.register(so);
        Fill a = new Fill(70, "b_2", "s-1.x", "12", 1000, 2, 81, so.id, 1_700_000_000_123L);
        Fill b = new Fill(71, "b3", "s-1.x", "12", 1001, 1, 82, so.id, 1_700_000_000_456L);
        String body = OrderViews.lookup(gateway, so.id).answer(List.of(a, b)).body();
        JsonNode j = new ObjectMapper().readTree(body);
        assertEquals(List.of("id", "side", "userId", "productId", "quantity", "price", "remaining", "status", "fills"), names(j));
        assertTrue(j.get("id").isIntegralNumber() && j.get("id").longValue() == so.id, body);
        assertEquals("sell", j.get("side").textValue());
        assertEquals("s-1.x", j.get("userId").textValue());
        assertTrue(j.get("productId").isTextual(), "productId is a string in the view: " + body);
        assertEquals("12", j.get("productId").textValue());
        assertTrue(j.get("quantity").isIntegralNumber() && j.get("quantity").longValue() == 5, body);
        assertTrue(j.get("price").isNumber() && j.get("price").decimalValue().compareTo(new BigDecimal("10")) == 0, body);
        assertTrue(j.get("remaining").isIntegralNumber() && j.get("remaining").longValue() == 2, body);
        assertEquals("open", j.get("status").textValue());
        assertEquals(2, j.get("fills").size());
        List<String> fillFields = List.of("saleId", "buyer", "seller", "productId", "price", "quantity", "poId", "soId", "created");
        Fill[] sent = {a, b};
        for (int i = 0; i < 2; i++) {
            JsonNode f = j.get("fills").get(i);
            assertEquals(fillFields, names(f));
            assertTrue(f.get("saleId").isIntegralNumber() && f.get("saleId").longValue() == sent[i].saleId(), body);
            assertEquals(sent[i].buyer(), f.get("buyer").textValue());
            assertEquals(sent[i].seller(), f.get("seller").textValue());
            assertEquals(sent[i].productId(), f.get("productId").textValue());
            assertTrue(f.get("price").isNumber(), body);
            assertEquals(0, f.get("price").decimalValue().compareTo(BigDecimal.valueOf(sent[i].priceCents(), 2)), body);
            assertTrue(f.get("quantity").isIntegralNumber() && f.get("quantity").longValue() == sent[i].quantity(), body);
            assertEquals(sent[i].poId(), f.get("poId").longValue());
            assertEquals(sent[i].soId(), f.get("soId").longValue());
            assertTrue(f.get("created").isIntegralNumber() && f.get("created").longValue() == sent[i].created(), body);
        }
        // and as text: prices as Prices.format writes them (10, 10.01), no trailing zeros, no exponent
        assertEquals("{\"id\":" + so.id + ",\"side\":\"sell\",\"userId\":\"s-1.x\",\"productId\":\"12\",\"quantity\":5,"
                + "\"price\":10,\"remaining\":2,\"status\":\"open\",\"fills\":[{\"saleId\":70,\"buyer\":\"b_2\","
                + "\"seller\":\"s-1.x\",\"productId\":\"12\",\"price\":10,\"quantity\":2,\"poId\":81,\"soId\":" + so.id
                + ",\"created\":1700000000123},{\"saleId\":71,\"buyer\":\"b3\",\"seller\":\"s-1.x\",\"productId\":\"12\","
                + "\"price\":10.01,\"quantity\":1,\"poId\":82,\"soId\":" + so.id + ",\"created\":1700000000456}]}", body);
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
