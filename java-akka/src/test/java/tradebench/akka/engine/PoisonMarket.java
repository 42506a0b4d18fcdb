package tradebench.akka.engine;

import tradebench.model.Order;
import tradebench.testing.ForwardingMarket;

/** The fast market, except that an order from user "poison" makes the cycle throw (a bug, as the engine sees it). */
final class PoisonMarket extends ForwardingMarket {
    static final String POISON = "poison";

    @Override
    public void join(Order order) {
        if (POISON.equals(order.userId)) throw new IllegalStateException("poisoned order " + order.id);
        super.join(order);
    }
}
