package tradebench.model.bench;

import java.util.function.Supplier;
import tradebench.model.Market;
import tradebench.model.OrderBookMarket;
import tradebench.model.ReferenceMarket;
import tradebench.model.replay.Replay;
import tradebench.model.replay.Scenario;

/**
 * {@code ./tradebench bench-model [ORDERS]}: a benchmark, not a test. Generates
 * a scenario of ORDERS orders (default 1,000,000) over 100 products, replays it
 * through the fast and the reference market on one thread, checks that both
 * give the same result, and prints orders per second for each.
 */
public final class MarketBenchmark {
    public static void main(String[] args) {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int perCycle = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        System.out.printf("scenario: %,d orders over 100 products, a cycle every %d orders (contract section 6 mix), 1 thread%n",
                orders, perCycle);
        Scenario scenario = ScenarioGenerator.load(42, orders, 100, perCycle);

        // warm the JIT on a smaller run first, so the fast figure is not mostly compilation
        Replay.run(ScenarioGenerator.load(7, Math.min(orders, 200_000), 100, perCycle), OrderBookMarket::new);

        Timed fast = time("fast (OrderBookMarket)", scenario, OrderBookMarket::new, orders);
        Timed reference = time("reference (ReferenceMarket)", scenario, ReferenceMarket::new, orders);
        boolean same = fast.json.equals(reference.json);
        System.out.printf("results identical: %s (%,d sales)%n", same ? "yes" : "NO", fast.result.sales().size());
        System.out.printf("speed-up: %.1fx%n", reference.seconds / fast.seconds);
        if (!same) System.exit(1);
    }

    private record Timed(Replay.Result result, String json, double seconds) {
    }

    private static Timed time(String name, Scenario s, Supplier<Market> market, int orders) {
        long t0 = System.nanoTime();
        Replay.Result r = Replay.run(s, market);
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%-28s %8.2f s  %,12.0f orders/s%n", name, secs, orders / secs);
        return new Timed(r, r.toJson(), secs);
    }
}
