package tradebench.threads.engine;

import java.util.ArrayList;
import java.util.List;
import tradebench.model.Order;
import tradebench.testing.ForwardingMarket;

/** The fast market, remembering every order that joined it (read after the engine thread has ended). */
final class RecordingMarket extends ForwardingMarket {
    final List<Order> joined = new ArrayList<>();

    @Override
    public void join(Order order) {
        joined.add(order);
        super.join(order);
    }
}
