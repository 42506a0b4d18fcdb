package tradebench.akka;

import com.typesafe.config.ConfigFactory;
import java.util.Locale;
import tradebench.engine.Config;

/**
 * The Akka side of the settings: which dispatcher runs the blocking JDBC writes
 * ({@code DISPATCHER}) and how many threads it has ({@code PERSIST_THREADS}).
 * Both dispatchers are declared in {@code application.conf}; this only sizes
 * them and picks one.
 */
public final class AkkaSettings {
    /** DISPATCHER: the executor kind of the persistence dispatcher. */
    public enum DispatcherKind {
        THREAD_POOL("thread-pool"), FORK_JOIN("fork-join");

        public final String wire;

        DispatcherKind(String wire) {
            this.wire = wire;
        }

        static DispatcherKind parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "thread-pool" -> THREAD_POOL;
                case "fork-join" -> FORK_JOIN;
                default -> throw new IllegalArgumentException("DISPATCHER must be thread-pool or fork-join, not '" + s + "'");
            };
        }

        /** Its path in application.conf. */
        public String dispatcherId() {
            return "tradebench.persistence-" + wire;
        }
    }

    public final DispatcherKind dispatcher;
    public final int persistThreads;

    private AkkaSettings(DispatcherKind dispatcher, int persistThreads) {
        this.dispatcher = dispatcher;
        this.persistThreads = persistThreads;
    }

    public static AkkaSettings from(Config config) {
        return new AkkaSettings(DispatcherKind.parse(config.extra("DISPATCHER", "thread-pool")),
                // one write in flight per engine: more threads would only wait
                config.extraInt("PERSIST_THREADS", config.engines(), 1, 1024));
    }

    /** application.conf with both persistence pools sized to {@link #persistThreads}. */
    public com.typesafe.config.Config akkaConfig() {
        String n = Integer.toString(persistThreads);
        return ConfigFactory.parseString(
                        "tradebench.persistence-thread-pool.thread-pool-executor.fixed-pool-size = " + n + "\n"
                        + "tradebench.persistence-fork-join.fork-join-executor.parallelism-min = " + n + "\n"
                        + "tradebench.persistence-fork-join.fork-join-executor.parallelism-max = " + n + "\n")
                .withFallback(ConfigFactory.load());
    }

    public String describe() {
        return "dispatcher=" + dispatcher.wire + " persistThreads=" + persistThreads;
    }
}
