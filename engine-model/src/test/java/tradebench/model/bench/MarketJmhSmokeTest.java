package tradebench.model.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The JMH market benchmark is built and runs: its generated harness is on the
 * test class path (annotation processing worked) and one very short, unforked
 * iteration of each market over a small scenario gives a score. It measures
 * nothing worth reading; {@code ./tradebench bench-model} does.
 */
class MarketJmhSmokeTest {
    @Test
    void bothMarketsProduceAScore() throws Exception {
        System.setProperty("jmh.ignoreLock", "true"); // another JMH run on the machine must not fail this
        Options opts = new OptionsBuilder()
                .include(MarketJmh.class.getName())
                .param("orders", "2000")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(opts).run();
        Set<String> names = new TreeSet<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            names.add(label.substring(label.lastIndexOf('.') + 1));
            double score = r.getPrimaryResult().getScore();
            assertTrue(score > 0 && Double.isFinite(score), label + " scored " + score);
        }
        assertEquals(Set.of("orderBook", "reference"), names);
    }
}
