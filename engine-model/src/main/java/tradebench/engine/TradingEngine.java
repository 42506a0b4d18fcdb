package tradebench.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.model.Sale;

/**
 * One engine's trading cycle (contract section 1), independent of how it is driven
 * (a thread, an actor) and of how sales are stored (blocking or not):
 * <ol>
 * <li>{@link #trade}: join the orders that arrived, time out, trade;</li>
 * <li>hand {@link Cycle#sales()} to a {@link SalesPersister};</li>
 * <li>{@link #stored}: when the persister says so, the filled orders become
 *     {@code filled} and the sales count. Only then may the next cycle start.</li>
 * </ol>
 * When a cycle throws, the owner calls {@link #abandon} and goes on with a new
 * engine over a fresh market.
 *
 * <p>Not thread-safe: one owner calls {@link #trade} and {@link #abandon};
 * {@link #stored} touches only thread-safe state and may run on a database
 * driver's thread.
 */
public final class TradingEngine {
    private final Market market;
    private final long timeoutMs;
    private final EngineStats stats;
    private final OrderRegistry registry;
    private long cycles;
    /** The orders of the cycle being traded, until {@link #trade} returns. */
    private List<Order> joining = List.of();

    public TradingEngine(Market market, long timeoutMs, EngineStats stats, OrderRegistry registry) {
        this.market = market;
        this.timeoutMs = timeoutMs;
        this.stats = stats;
        this.registry = registry;
    }

    /** Steps 1-3 of a cycle at time {@code now}: join {@code arrived} (in arrival order), time out, trade. */
    public Cycle trade(long now, List<Order> arrived) {
        joining = arrived;
        for (Order o : arrived) market.join(o);
        List<Order> timedOut = new ArrayList<>();
        market.timeOut(now, timeoutMs, timedOut);
        for (Order o : timedOut) registry.closed(o, OrderStatus.TIMED_OUT);
        List<Sale> sales = new ArrayList<>();
        List<Order> filled = new ArrayList<>();
        market.trade(sales, filled);
        stats.cycle(market.openOrders());
        joining = List.of();
        return new Cycle(cycles++, sales, filled, timedOut);
    }

    /**
     * A cycle threw: this engine's market is dead and a fresh one takes its
     * place. The registry forgets every order still open in it, in the batch
     * it was joining, or in {@code neverJoined} (orders the owner had taken in
     * for a later cycle): {@code /orders/{id}} then says {@code unknown} and
     * shows the fills they had. Orders already filled or timed out keep their
     * status; stored sales stay stored. A market broken so badly that it cannot
     * list its orders leaves those {@code open} in the registry. Returns how
     * many orders were forgotten.
     */
    public int abandon(Collection<Order> neverJoined) {
        Set<Order> lost = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Order o : joining) if (o.status() == OrderStatus.OPEN) lost.add(o);
        for (Order o : neverJoined) if (o.status() == OrderStatus.OPEN) lost.add(o);
        try {
            market.forEachOpen(o -> {
                if (o.status() == OrderStatus.OPEN) lost.add(o);
            });
        } catch (RuntimeException e) {
            // the market cannot list its orders: the ones found so far are forgotten
        }
        for (Order o : lost) registry.unregister(o);
        joining = List.of();
        return lost.size();
    }

    /** Step 4 is done: every sale of the cycle is stored. Buyers and sellers learn of their fills now. */
    public void stored(Cycle cycle) {
        for (Order o : cycle.filled()) registry.closed(o, OrderStatus.FILLED);
        stats.stored(cycle.sales().size());
    }

    /** One whole cycle with a blocking persister: returns when its sales are stored. */
    public Cycle runBlocking(long now, List<Order> arrived, SalesPersister persister) {
        Cycle c = trade(now, arrived);
        persister.store(c.sales(), () -> stored(c));
        return c;
    }

    public int openOrders() {
        return market.openOrders();
    }

    public EngineStats stats() {
        return stats;
    }
}
