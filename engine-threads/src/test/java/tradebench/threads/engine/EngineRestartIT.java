package tradebench.threads.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tradebench.db.Database;
import tradebench.engine.ThreadKind;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.OrderRequest;
import tradebench.engine.ServiceStats;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Sale;
import tradebench.testing.ForwardingMarket;
import tradebench.model.Side;
import tradebench.testing.TestDatabase;
import tradebench.testing.Wait;

/**
 * A cycle that throws does not end the engine: it starts again with a fresh
 * market (the orders of the broken one are forgotten), keeps its inbox and
 * goes on trading and storing.
 */
class EngineRestartIT {

    @Test
    void aFailedCycleRestartsTheEngineWithAFreshMarket() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        tdb.deleteAllSales();
        Config config = tdb.config("ENGINES", "1", "DELAY_MS", "1", "PERSIST", "per-sale");
        AtomicInteger made = new AtomicInteger();
        ServiceStats stats = new ServiceStats("java-threads", 1);
        OrderRegistry registry = new OrderRegistry();
        try (Database db = new Database(config)) {
            EngineThreads engines = EngineThreads.start(config, ThreadKind.of(config), registry, stats,
                    () -> made.getAndIncrement() == 0 ? new BreaksOnFirstTrade() : new OrderBookMarket(), db::writer);
            OrderGateway gateway = new OrderGateway(config, new IdSource(db.largestStoredOrderId(10_000)), registry, stats, engines);

            long lostSell = accept(gateway, new OrderRequest(Side.SELL, "s1", 7, 1, 1000));
            long lostBuy = accept(gateway, new OrderRequest(Side.BUY, "b1", 7, 1, Order.NO_LIMIT));
            Wait.until(() -> engines.engine(0).restarts() == 1, "the engine restarted");
            assertNull(registry.find(lostSell), "the broken market's orders are forgotten (/orders says unknown)");
            assertNull(registry.find(lostBuy));

            long sell = accept(gateway, new OrderRequest(Side.SELL, "s2", 7, 1, 1000));
            long buy = accept(gateway, new OrderRequest(Side.BUY, "b2", 7, 1, Order.NO_LIMIT));
            Wait.until(() -> stats.salesPersisted() == 1, "the fresh market traded and stored");
            assertNotNull(registry.find(sell));
            engines.drain();

            assertEquals(2, made.get(), "one fresh market after one failure");
            assertEquals(1, tdb.count(""), "one SALES row");
            assertEquals(1, tdb.count("SO_ID = " + sell + " AND PO_ID = " + buy), "the sale of the fresh market");
        }
    }

    private static long accept(OrderGateway gateway, OrderRequest r) {
        return ((OrderGateway.Accepted) gateway.submit(r)).id();
    }


    /**
     * A market with a bug: it throws on its first trade once it holds both
     * orders. (Breaking on the first order alone raced: the buy could arrive a
     * cycle later, in the fresh market, and be rightly remembered there.)
     */
    private static final class BreaksOnFirstTrade extends ForwardingMarket {
        @Override
        public void trade(List<Sale> out, List<Order> filled) {
            if (market.openOrders() >= 2) throw new IllegalStateException("test: the market broke");
            super.trade(out, filled);
        }
    }
}
