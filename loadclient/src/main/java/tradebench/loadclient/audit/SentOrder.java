package tradebench.loadclient.audit;

import java.math.BigDecimal;

/**
 * An order this run got a 202 for: what was sent, the id the service gave it,
 * and when (monotonic ns) it was sent and answered, for the id-order check.
 * {@code price} is the sell price or the buy's maxPrice, null for a buy without limit.
 */
public record SentOrder(long id, boolean buy, String userId, String productId, int quantity, BigDecimal price,
                 long sentNs, long answeredNs) {

    public String side() {
        return buy ? "buy" : "sell";
    }
}
