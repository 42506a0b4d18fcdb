package tradebench.model.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.DeserializationFeature;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tradebench.model.Order;
import tradebench.model.Prices;

/** A replay SCENARIO (contract section 2): a time-out and a list of events in arrival order. */
public record Scenario(long timeoutMs, List<Event> events) {

    /** An order arriving, or (order == null) a trade event: one cycle at {@code t}. */
    public record Event(long t, Order order) {
        public boolean isTrade() {
            return order == null;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    public static Scenario read(Path file) throws IOException {
        return parse(JSON.readTree(file.toFile()));
    }

    public static Scenario parse(String json) throws IOException {
        return parse(JSON.readTree(json));
    }

    private static Scenario parse(JsonNode root) {
        long timeoutMs = root.path("timeoutMs").asLong(60000);
        List<Event> events = new ArrayList<>();
        for (JsonNode e : root.withArray("events")) {
            long t = e.get("t").asLong();
            String type = e.get("type").asText();
            switch (type) {
                case "trade" -> events.add(new Event(t, null));
                case "sell" -> events.add(new Event(t, Order.sell(e.get("id").asLong(), e.get("userId").asText(),
                        product(e), e.get("quantity").asLong(), cents(e.get("price")), t)));
                case "buy" -> {
                    JsonNode max = e.get("maxPrice");
                    long limit = max == null || max.isNull() ? Order.NO_LIMIT : cents(max);
                    events.add(new Event(t, Order.buy(e.get("id").asLong(), e.get("userId").asText(),
                            product(e), e.get("quantity").asLong(), limit, t)));
                }
                default -> throw new IllegalArgumentException("unknown event type: " + type);
            }
        }
        return new Scenario(timeoutMs, events);
    }

    private static int product(JsonNode e) {
        return Integer.parseInt(e.get("productId").asText());
    }

    private static long cents(JsonNode price) {
        return Prices.toCents(price.decimalValue().stripTrailingZeros().max(BigDecimal.ZERO));
    }
}
