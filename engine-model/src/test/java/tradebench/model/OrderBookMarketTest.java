package tradebench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
