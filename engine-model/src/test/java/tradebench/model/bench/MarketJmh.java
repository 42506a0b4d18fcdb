package tradebench.model.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tradebench.model.OrderBookMarket;
import tradebench.model.ReferenceMarket;
import tradebench.model.replay.Replay;
import tradebench.model.replay.Scenario;

/**
 * The market benchmark under JMH ({@code ./tradebench bench-model}): one
 * replay of a seeded scenario with the load client's mix
 * ({@link ScenarioGenerator#load}: {@code orders} orders over 100 products, a
 * cycle every 1,000 orders, half buys without a limit, half sells at
 * 10.00..200.00) through the fast market and through the reference market, on
 * one thread, with no clock and no database. The score is the time of one
 * whole replay (ms/op); orders/s = orders / (score / 1000).
 *
 * <p>Both markets replay the same scenario; that their results are identical is
 * the market tests' job (MarketContract), not the benchmark's.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 2, jvmArgsAppend = {"-XX:+UseParallelGC", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class MarketJmh {
    /** Orders in the scenario: one replay of them is one operation. */
    @Param("100000")
    public int orders;

    private Scenario scenario;

    @Setup(Level.Trial)
    public void scenario() {
        scenario = ScenarioGenerator.load(42, orders, 100, 1000);
    }

    @Benchmark
    public Replay.Result orderBook() {
        return Replay.run(scenario, OrderBookMarket::new);
    }

    @Benchmark
    public Replay.Result reference() {
        return Replay.run(scenario, ReferenceMarket::new);
    }
}
