package tradebench.engine;

import java.util.List;
import tradebench.model.Order;
import tradebench.model.Sale;

/** What one cycle of one engine did: its sales (to store), and the orders that left. */
public record Cycle(long number, List<Sale> sales, List<Order> filled, List<Order> timedOut) {
}
