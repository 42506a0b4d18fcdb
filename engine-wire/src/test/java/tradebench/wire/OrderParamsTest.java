package tradebench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tradebench.engine.OrderRequest;
import tradebench.model.Order;
import tradebench.model.Side;

/** contract section 3's bad input, as section 8 (docs/contract-details.md, "HTTP answers") reads it. */
class OrderParamsTest {
    private static OrderRequest parse(Side side, String... kv) throws BadRequest {
        Map<String, List<String>> params = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            params.computeIfAbsent(kv[i], k -> new java.util.ArrayList<>()).add(kv[i + 1]);
        }
        return OrderParams.parse(side, params::get, 100);
    }

    @Test
    void acceptsAGoodSellAndABuyWithoutPrice() throws BadRequest {
        OrderRequest s = parse(Side.SELL, "userId", "s_1.x-Y", "productId", "99", "quantity", "1000000", "price", "999999999.99");
        assertEquals(new OrderRequest(Side.SELL, "s_1.x-Y", 99, 1_000_000, 99_999_999_999L), s);
        OrderRequest b = parse(Side.BUY, "userId", "b1", "productId", "0", "quantity", "1");
        assertEquals(Order.NO_LIMIT, b.priceCents());
        assertEquals(1250, parse(Side.BUY, "userId", "b1", "productId", "0", "quantity", "1", "price", "12.5").priceCents());
        assertEquals(1200, parse(Side.BUY, "userId", "b1", "productId", "0", "quantity", "1", "price", "12").priceCents());
        assertEquals(100_000_000_000L, parse(Side.SELL, "userId", "b1", "productId", "0", "quantity", "1", "price", "1000000000.00").priceCents());
    }

    @ParameterizedTest(name = "{0}={1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "userId|''|userId",
        "userId|a b|userId",
        "userId|é|userId",
        "userId|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|userId",
        "userId|x';DROP TABLE SALES;--|userId",
        "productId|100|productId",
        "productId|-1|productId",
        "productId|07|productId",
        "productId|1.0|productId",
        "productId|''|productId",
        "quantity|0|quantity",
        "quantity|1000001|quantity",
        "quantity|1.5|quantity",
        "quantity|-3|quantity",
        "quantity|+3|quantity",
        "quantity|NaN|quantity",
        "quantity|99999999999999999999|quantity",
        "price|0|price",
        "price|0.00|price",
        "price|-1|price",
        "price|1.234|price",
        "price|.5|price",
        "price|5.|price",
        "price|1e3|price",
        "price|NaN|price",
        "price|Infinity|price",
        "price|1000000000.01|price",
        "price|''|price",
    })
    void rejectsEachMalformedParameterNamingIt(String name, String value, String named) {
        Map<String, String> good = new HashMap<>(Map.of("userId", "s1", "productId", "5", "quantity", "3", "price", "10.00"));
        good.put(name, value);
        String[] kv = good.entrySet().stream().flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toArray(String[]::new);
        BadRequest e = assertThrows(BadRequest.class, () -> parse(Side.SELL, kv));
        assertEquals(400, e.status());
        assertTrue(e.getMessage().startsWith(named), e.getMessage());
    }

    @Test
    void missingAndRepeatedParametersAreBadInput() {
        assertTrue(assertThrows(BadRequest.class, () -> parse(Side.SELL, "userId", "s1", "productId", "5", "quantity", "3"))
                .getMessage().contains("price is missing"));
        assertTrue(assertThrows(BadRequest.class, () -> parse(Side.BUY, "productId", "5", "quantity", "3"))
                .getMessage().contains("userId is missing"));
        assertTrue(assertThrows(BadRequest.class, () -> parse(Side.BUY, "userId", "a", "userId", "b", "productId", "5", "quantity", "3"))
                .getMessage().contains("given more than once"));
    }

    @Test
    void aPlainQueryIsSplitAsAServletContainerSplitsIt() {
        var q = OrderParams.plainQuery("userId=b1&&productId=7&quantity=3&quantity=4&=x&flag&price=&a=b=c");
        assertEquals(List.of("b1"), q.apply("userId"));
        assertEquals(List.of("7"), q.apply("productId"));
        assertEquals(List.of("3", "4"), q.apply("quantity"));
        assertEquals(List.of(""), q.apply("flag"));
        assertEquals(List.of(""), q.apply("price"));
        assertEquals(List.of("b=c"), q.apply("a"));
        assertEquals(null, q.apply(""));
        assertEquals(null, q.apply("missing"));
        assertEquals(null, OrderParams.plainQuery(null).apply("userId"));
        assertEquals(null, OrderParams.plainQuery("").apply("userId"));
    }

    @Test
    void aQueryThatNeedsDecodingIsLeftToTheContainer() {
        for (String q : new String[] {"userId=b%31", "userId=b+1", "userId=b 1", "userId=b1;x", "userId=\u00e9", "a=1#f"}) {
            assertEquals(null, OrderParams.plainQuery(q), q);
        }
        String many = "a=1&".repeat(OrderParams.PLAIN_MAX_PARAMETERS);
        assertTrue(OrderParams.plainQuery(many) != null);
        assertEquals(null, OrderParams.plainQuery(many + "b=2"));
    }
}
