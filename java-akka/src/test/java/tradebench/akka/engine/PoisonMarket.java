package tradebench.akka.engine;

import java.util.List;
import java.util.function.Consumer;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;

/** The fast market, except that an order from user "poison" makes the cycle throw (a bug, as the engine sees it). */
final class PoisonMarket implements Market {
    static final String POISON = "poison";
    private final Market real = new OrderBookMarket();

    @Override
    public void join(Order order) {
        if (POISON.equals(order.userId)) throw new IllegalStateException("poisoned order " + order.id);
        real.join(order);
    }

    @Override
    public void timeOut(long now, long timeoutMs, List<Order> out) {
        real.timeOut(now, timeoutMs, out);
    }

    @Override
    public void trade(List<Sale> out, List<Order> filled) {
        real.trade(out, filled);
    }

    @Override
    public int openOrders() {
        return real.openOrders();
    }

    @Override
    public void forEachOpen(Consumer<Order> action) {
        real.forEachOpen(action);
    }
}
