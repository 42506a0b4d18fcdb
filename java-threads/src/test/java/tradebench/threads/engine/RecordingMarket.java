package tradebench.threads.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;

/** The fast market, remembering every order that joined it (read after the engine thread has ended). */
final class RecordingMarket implements Market {
    private final Market market = new OrderBookMarket();
    final List<Order> joined = new ArrayList<>();

    @Override
    public void join(Order order) {
        joined.add(order);
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
