package tradebench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.OrderStatus;
import tradebench.model.Sale;
import tradebench.testing.ForwardingMarket;

/** The cycle protocol: trade, persist, and only then are orders filled and sales counted. */
class TradingEngineTest {
    private final ServiceStats stats = new ServiceStats("test", 1);
    private final OrderRegistry registry = new OrderRegistry(10);
    private final TradingEngine engine = new TradingEngine(new OrderBookMarket(), 1000, stats.engine(0), registry);

    @Test
    void ordersAreFilledOnlyAfterTheirSalesAreStored() {
        Order so = Order.sell(1, "s", 3, 2, 500, 0), po = Order.buy(2, "b", 3, 2, Order.NO_LIMIT, 0);
        registry.register(so);
        registry.register(po);
        AtomicReference<Runnable> pending = new AtomicReference<>();
        List<Sale> handed = new ArrayList<>();
        SalesPersister slow = (sales, stored) -> {
            handed.addAll(sales);
            pending.set(stored);
        };
        Cycle c = engine.trade(10, List.of(so, po));
        slow.store(c.sales(), () -> engine.stored(c));
        assertEquals(List.of(new Sale("b", "s", 3, 500, 2, 2, 1)), handed);
        assertEquals(OrderStatus.OPEN, po.status(), "not filled before the row is stored");
        assertEquals(0, stats.salesPersisted());
        pending.get().run();
        assertEquals(OrderStatus.FILLED, po.status());
        assertEquals(OrderStatus.FILLED, so.status());
        assertEquals(1, stats.salesPersisted());
    }

    @Test
    void timedOutOrdersSayTimedOutAndClosedOnesAreForgottenBeyondTheBound() {
        List<Order> orders = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            Order o = Order.buy(i, "b" + i, 0, 1, Order.NO_LIMIT, 0);
            registry.register(o);
            orders.add(o);
        }
        engine.runBlocking(5000, orders, (sales, stored) -> stored.run());
        assertEquals(OrderStatus.TIMED_OUT, orders.get(11).status());
        assertEquals(OrderStatus.TIMED_OUT, registry.find(12).status());
        assertNull(registry.find(1), "only the 10 most recent closed orders are kept");
        assertEquals(10, registry.size());
    }

    @Test
    void theGatewayRefusesWhenTheInboxIsFullAndAfterClose() {
        Inbox inbox = new Inbox(2);
        OrderGateway gw = new OrderGateway(Config.from(java.util.Map.of("ENGINES", "1")), new IdSource(0), registry, stats,
                (engineIndex, order) -> inbox.offer(order));
        OrderRequest r = new OrderRequest(tradebench.model.Side.BUY, "b", 1, 1, Order.NO_LIMIT);
        assertEquals(OrderGateway.Accepted.class, gw.submit(r).getClass());
        assertEquals(OrderGateway.Accepted.class, gw.submit(r).getClass());
        assertEquals(OrderGateway.OVERLOADED, gw.submit(r));
        assertEquals(2, inbox.pending());
        List<Order> drained = new ArrayList<>();
        assertEquals(2, inbox.drainTo(drained));
        assertEquals(OrderGateway.Accepted.class, gw.submit(r).getClass());
        gw.close();
        assertEquals(OrderGateway.SHUTTING_DOWN, gw.submit(r));
        assertEquals(3, stats.accepted());
        assertEquals(2, stats.overloadedCount());
    }

    /**
     * A cycle throws half-way through its batch: the open orders of the dead market, the rest of
     * the batch and the orders waiting outside it are forgotten; a timed-out order keeps its status.
     */
    @Test
    void abandonForgetsEveryOpenOrderOfADeadMarketAndNothingClosed() {
        Order old = Order.sell(1, "s", 3, 2, 500, 0);          // open in the market, then times out
        Order resting = Order.sell(2, "s", 4, 2, 900, 5_000);  // open in the market
        Order poison = Order.buy(3, "b", 9, 1, Order.NO_LIMIT, 5_000);
        Order unjoined = Order.buy(4, "b", 4, 1, 100, 5_000);  // after the poison in the batch
        Order waiting = Order.buy(5, "b", 4, 1, 100, 5_000);   // taken in for the next cycle
        for (Order o : List.of(old, resting, poison, unjoined, waiting)) registry.register(o);
        TradingEngine broken = new TradingEngine(new ForwardingMarket() {
            @Override
            public void join(Order order) {
                if (order == poison) throw new IllegalStateException("a bug");
                market.join(order);
            }
        }, 1000, stats.engine(0), registry);
        broken.runBlocking(100, new ArrayList<>(List.of(old, resting)), (sales, stored) -> stored.run());
        broken.runBlocking(1_500, new ArrayList<>(), (sales, stored) -> stored.run()); // old times out
        assertEquals(OrderStatus.TIMED_OUT, old.status());
        assertThrows(IllegalStateException.class, () -> broken.trade(6_000, new ArrayList<>(List.of(poison, unjoined))));
        assertEquals(4, broken.abandon(List.of(waiting, resting))); // resting named twice, counted once
        for (long id : new long[] {2, 3, 4, 5}) assertNull(registry.find(id), "order " + id + " forgotten");
        assertSame(old, registry.find(1), "a timed-out order keeps its status");
    }
}
