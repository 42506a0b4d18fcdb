package tradebench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import tradebench.model.replay.Replay;
import tradebench.model.replay.Scenario;
import tradebench.testing.ResultComparison;
import tradebench.testing.Vectors;

/**
 * One suite for every {@link Market} (as exchange-core runs one suite against
 * each order book): the conformance vectors and the rules of contract section 1.
 * A subclass only says how to make its market.
 */
public abstract class MarketContract {
    protected abstract Market newMarket();

    @TestFactory
    Stream<DynamicTest> reproducesEveryConformanceVector() throws Exception {
        return Vectors.scenarios().stream().map(scenario -> DynamicTest.dynamicTest(
                scenario.getFileName().toString(), () -> {
                    Path resultFile = Vectors.resultOf(scenario);
                    String actual = Replay.run(Scenario.read(scenario), this::newMarket).toJson();
                    List<String> diffs = ResultComparison.differences(Files.readString(resultFile), actual);
                    assertTrue(diffs.isEmpty(), () -> scenario.getFileName() + ":\n" + String.join("\n", diffs));
                }));
    }

    private final List<Sale> sales = new ArrayList<>();
    private final List<Order> filled = new ArrayList<>();
    private final List<Order> expired = new ArrayList<>();

    private List<Sale> cycle(Market m, long now) {
        sales.clear();
        filled.clear();
        expired.clear();
        m.timeOut(now, 1000, expired);
        m.trade(sales, filled);
        return List.copyOf(sales);
    }

    @Test
    void cheapestSellerFirstThenEarliest() {
        Market m = newMarket();
        m.join(Order.sell(1, "s1", 7, 5, 1200, 0));
        m.join(Order.sell(2, "s2", 7, 5, 1000, 1));
        m.join(Order.sell(3, "s3", 7, 5, 1000, 2));
        m.join(Order.buy(4, "b1", 7, 3, Order.NO_LIMIT, 3));
        assertEquals(List.of(new Sale("b1", "s2", 7, 1000, 3, 4, 2)), cycle(m, 10));
    }

    @Test
    void buyerTradesWithOneSellerPerCycleAndGetsTheRestLater() {
        Market m = newMarket();
        m.join(Order.sell(1, "s1", 3, 2, 500, 0));
        m.join(Order.sell(2, "s2", 3, 5, 600, 0));
        m.join(Order.buy(3, "b1", 3, 4, Order.NO_LIMIT, 0));
        assertEquals(List.of(new Sale("b1", "s1", 3, 500, 2, 3, 1)), cycle(m, 1));
        assertEquals(List.of(new Sale("b1", "s2", 3, 600, 2, 3, 2)), cycle(m, 2));
        assertEquals(List.of(), cycle(m, 3));
        assertEquals(1, m.openOrders()); // s2 keeps 3
    }

    @Test
    void buyerWhoseLimitIsBelowTheBestStepsAside() {
        Market m = newMarket();
        m.join(Order.sell(1, "s1", 0, 1, 1000, 0));
        m.join(Order.buy(2, "cheap", 0, 1, 999, 0));
        m.join(Order.buy(3, "b2", 0, 1, 1000, 0));
        assertEquals(List.of(new Sale("b2", "s1", 0, 1000, 1, 3, 1)), cycle(m, 1));
        assertEquals(1, m.openOrders());
    }

    @Test
    void timeOutIsStrictlyGreaterAndRemovesPartlyFilledOrders() {
        Market m = newMarket();
        m.join(Order.sell(1, "s1", 0, 5, 100, 0));
        m.join(Order.buy(2, "b1", 0, 2, Order.NO_LIMIT, 0));
        cycle(m, 1000); // 1000 - 0 is not > 1000: still open; b1 buys 2
        assertTrue(expired.isEmpty());
        cycle(m, 1001);
        assertEquals(List.of(1L), expired.stream().map(o -> o.id).toList());
        assertEquals(0, m.openOrders());
    }
}
