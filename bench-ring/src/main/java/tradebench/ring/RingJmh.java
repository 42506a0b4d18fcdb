package tradebench.ring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * One round of a ring per JMH iteration (single shot: a round of 10,000 x 500 hand-overs takes seconds, long
 * enough to time alone). The ring is built once per fork; every round is checked (Round#problem) and a ring that
 * drops or double-delivers fails the benchmark. Each measured round's wall and process CPU time are appended as a
 * JSON line to the file named by -Dring.log (JMH's own result has no CPU time).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RingJmh {
    /** generous: the slowest ring on one CPU finishes a default round in about a second */
    private static final Duration ROUND_LIMIT = Duration.ofSeconds(30);

    @Param("akka-fj")
    public String ring;
    @Param("10000")
    public int members;
    @Param("500")
    public int messages;
    /** 0: one per CPU the JVM may run on (taskset's) */
    @Param("0")
    public int threads;
    /** the thread-per-member ring's members: 10,000 platform threads do not fit a small machine */
    @Param("100")
    public int threadMembers;

    private Tally tally;
    private Ring open;
    private Round round;
    private boolean measured;

    @Setup(Level.Trial)
    public void build() {
        int pool = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        // the virtual threads' scheduler sizes itself once, at its first thread: one carrier per pool thread
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(pool));
        tally = new Tally("threads".equals(ring) ? Math.min(members, threadMembers) : members, messages);
        open = Rings.open(ring, tally, pool);
    }

    @Setup(Level.Iteration)
    public void begin(IterationParams params) {
        measured = params.getType() == IterationType.MEASUREMENT;
        round = null;
    }

    @Benchmark
    public long round() throws InterruptedException {
        round = Round.run(open, tally, ROUND_LIMIT);
        return round.received();
    }

    @TearDown(Level.Iteration)
    public void check() throws IOException {
        String problem = round == null ? "no round ran" : round.problem();
        if (problem != null) {
            throw new IllegalStateException(ring + ": " + problem);
        }
        String log = System.getProperty("ring.log");
        if (measured && log != null) {
            Files.writeString(Path.of(log), line(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }

    private String line() {
        int pool = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        return String.format("{\"ring\":\"%s\",\"threads\":%d,\"members\":%d,\"messages\":%d,\"handovers\":%d,"
                + "\"wallNs\":%d,\"cpuNs\":%d,\"cpus\":%d,\"pid\":%d}%n", ring, pool, tally.members(), messages,
                round.received(), round.wallNanos(), round.cpuNanos(), Runtime.getRuntime().availableProcessors(),
                ProcessHandle.current().pid());
    }

    @TearDown(Level.Trial)
    public void close() {
        open.close();
    }
}
