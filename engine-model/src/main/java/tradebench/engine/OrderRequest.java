package tradebench.engine;

import tradebench.model.Order;
import tradebench.model.Side;

/**
 * An order request that passed validation (contract section 3; the parsing and
 * its 400s are {@code tradebench.wire.OrderParams}), ready to become an order.
 */
public record OrderRequest(Side side, String userId, int productId, int quantity, long priceCents) {
    public Order toOrder(long id, long arrivalMs) {
        return new Order(id, side, userId, productId, quantity, priceCents, arrivalMs);
    }
}
