package tradebench.ring;

import java.util.List;

/** The rings by name, as `./tradebench ring --rows` and RingJmh's `ring` parameter name them. */
public final class Rings {
    public static final List<String> NAMES = List.of("akka-fj", "akka-tp", "akka-affinity", "pekko-fj", "pekko-tp",
            "jetlang", "threads", "virtual", "future");

    private Rings() {
    }

    /** NAME's ring over TALLY's members on THREADS threads (the thread-per-member rings take one per member). */
    public static Ring open(String name, Tally tally, int threads) {
        return switch (name) {
            case "akka-fj" -> new AkkaRing(tally, "fork-join-executor", threads);
            case "akka-tp" -> new AkkaRing(tally, "thread-pool-executor", threads);
            case "akka-affinity" -> new AkkaRing(tally, "affinity-pool-executor", threads);
            case "pekko-fj" -> new PekkoRing(tally, "fork-join-executor", threads);
            case "pekko-tp" -> new PekkoRing(tally, "thread-pool-executor", threads);
            case "jetlang" -> new JetlangRing(tally, threads);
            case "threads" -> new QueueRing(tally, Thread.ofPlatform().daemon(true));
            case "virtual" -> new QueueRing(tally, Thread.ofVirtual());
            case "future" -> new FutureRing(tally, threads);
            default -> throw new IllegalArgumentException("no ring " + name + ": one of " + NAMES);
        };
    }
}
