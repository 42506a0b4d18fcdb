package tradebench.model.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import tradebench.model.Order;
import tradebench.model.replay.Scenario;

/** Seeded scenarios for tests and the market benchmark. */
public final class ScenarioGenerator {
    private ScenarioGenerator() {
    }

    /**
     * A scenario that exercises every rule: few products and users (ties, self
     * trades, shared buyers), narrow prices, half the buys with a limit, short
     * time-outs, and trade events at random.
     */
    public static Scenario random(long seed, int events, int products, int users, long timeoutMs) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Scenario.Event> out = new ArrayList<>(events);
        long t = 0, id = 1;
        for (int i = 0; i < events; i++) {
            t += r.nextInt(4);
            int kind = r.nextInt(20);
            if (kind < 2) {
                out.add(new Scenario.Event(t, null));
                continue;
            }
            String user = "u" + r.nextInt(users);
            int product = r.nextInt(products);
            long qty = 1 + r.nextInt(r.nextInt(10) == 0 ? 50 : 5);
            long price = 1000 + r.nextInt(20) * 25;
            if (kind < 11) {
                out.add(new Scenario.Event(t, Order.sell(id++, user, product, qty, price, t)));
            } else {
                long limit = r.nextBoolean() ? Order.NO_LIMIT : 1000 + r.nextInt(20) * 25;
                out.add(new Scenario.Event(t, Order.buy(id++, user, product, qty, limit, t)));
            }
        }
        out.add(new Scenario.Event(t + 1, null));
        return new Scenario(timeoutMs, out);
    }

    /**
     * The benchmark's load: {@code orders} orders over {@code products} products
     * with the load client's mix (contract section 6: half buys without a limit, half sells
     * at 10.00..200.00, quantities 1..10, 1000 users), one ms apart, a cycle
     * every {@code perCycle} orders, a 60 s time-out.
     */
    public static Scenario load(long seed, int orders, int products, int perCycle) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Scenario.Event> out = new ArrayList<>(orders + orders / perCycle + 1);
        for (int i = 0; i < orders; i++) {
            long t = i / 10; // 10,000 orders/s of simulated time
            int product = r.nextInt(products);
            long qty = 1 + r.nextInt(10);
            int k = r.nextInt(1000);
            if (r.nextBoolean()) {
                out.add(new Scenario.Event(t, Order.buy(i + 1, "b" + k, product, qty, Order.NO_LIMIT, t)));
            } else {
                out.add(new Scenario.Event(t, Order.sell(i + 1, "s" + k, product, qty, 1000 + r.nextInt(19001), t)));
            }
            if ((i + 1) % perCycle == 0) out.add(new Scenario.Event(t, null));
        }
        out.add(new Scenario.Event(orders / 10 + 1, null));
        return new Scenario(60_000, out);
    }
}
