package tradebench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tradebench.model.bench.ScenarioGenerator;
import tradebench.model.replay.Replay;
import tradebench.model.replay.Scenario;

class OrderBookMarketTest extends MarketContract {
    @Override
    protected Market newMarket() {
        return new OrderBookMarket();
    }

    /** Seeded random scenarios (few products, limits, time-outs, shared users): the fast market agrees with the reference. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void agreesWithTheReferenceOnRandomScenarios(long seed) {
        Random r = new Random(seed);
        Scenario s = ScenarioGenerator.random(seed, 3000, 1 + r.nextInt(8), 5 + r.nextInt(40), 20 + r.nextInt(400));
        String fast = Replay.run(s, OrderBookMarket::new).toJson();
        String reference = Replay.run(s, ReferenceMarket::new).toJson();
        assertEquals(reference, fast);
    }

    /** An order handed over from another market (java-spray-async's cluster) trades only what it has left. */
    @Test
    void aResumedOrderTradesOnlyItsRemainingQuantity() {
        Market m = newMarket();
        Order sell = Order.resumed(1, Side.SELL, "s", 7, 10, 3, 500, 0);
        Order buy = Order.buy(2, "b", 7, 10, Order.NO_LIMIT, 1);
        m.join(sell);
        m.join(buy);
        List<Sale> sales = new ArrayList<>();
        List<Order> filled = new ArrayList<>();
        m.trade(sales, filled);
        assertEquals(List.of(new Sale("b", "s", 7, 500, 3, 2, 1)), sales);
        assertEquals(List.of(sell), filled);
        assertEquals(7, buy.remaining());
        assertThrows(IllegalArgumentException.class, () -> Order.resumed(3, Side.BUY, "b", 7, 10, 0, Order.NO_LIMIT, 0));
        assertThrows(IllegalArgumentException.class, () -> Order.resumed(3, Side.BUY, "b", 7, 10, 11, Order.NO_LIMIT, 0));
    }
}
