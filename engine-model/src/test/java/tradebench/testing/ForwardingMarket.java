package tradebench.testing;

import java.util.List;
import java.util.function.Consumer;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;

/**
 * The fast market behind a seam: a test market extends this and overrides
 * only the step it changes (records what joins, throws to play a bug, ...).
 */
public abstract class ForwardingMarket implements Market {
    protected final Market market = new OrderBookMarket();

    @Override
    public void join(Order order) {
        market.join(order);
    }

    @Override
    public void timeOut(long now, long timeoutMs, List<Order> out) {
        market.timeOut(now, timeoutMs, out);
    }

    @Override
    public void trade(List<Sale> out, List<Order> filled) {
        market.trade(out, filled);
    }

    @Override
    public int openOrders() {
        return market.openOrders();
    }

    @Override
    public void forEachOpen(Consumer<Order> action) {
        market.forEachOpen(action);
    }
}
