package tradebench.virtual;

import java.util.HashMap;
import java.util.Map;
import tradebench.db.Database;
import tradebench.db.InFlightLimit;
import tradebench.engine.Config;
import tradebench.engine.ThreadKind;
import tradebench.threads.ThreadsService;

/**
 * java-virtual: blocking code throughout, on virtual threads. Embedded Tomcat with a
 * virtual thread per request, a virtual thread per engine, Connector/J + HikariCP,
 * and a cycle's per-sale inserts taken by lanes of virtual threads
 * ({@link tradebench.db.ConcurrentSalesWriter}): the engine forks them and joins
 * them, so behind a far database it keeps as many inserts in flight as the
 * asynchronous design does (DB_POOL), with the same guarantee (its next cycle
 * starts when every sale of this one is stored), and behind a near one only as
 * many as the round trips say it needs ({@link tradebench.db.InFlightLimit},
 * between ENGINES and DB_POOL). The rest is java-threads' service. Settings:
 * contract section 5 (DB_POOL default 64: the pool bounds what it keeps in
 * flight), plus HTTP_THREADS and MAX_CONNECTIONS (README); THREADS is not read.
 */
public final class Main {
    public static final String VARIANT = "java-virtual";
    /** As java-spray-async's: the most inserts in flight at once, over every engine. */
    public static final int DEFAULT_POOL = 64;

    /**
     * Virtual threads everywhere; every connection of the pool open; one limit on inserts in flight for all
     * engines, never below one per engine (what java-threads keeps in flight) nor above the pool.
     */
    public static final ThreadsService.Design DESIGN = new ThreadsService.Design(
            VARIANT, config -> ThreadKind.VIRTUAL, config -> new Database(config, true),
            (config, db) -> {
                // LIMIT=gradient2: Netflix's gradient limit learns it instead (README, "The limit")
                InFlightLimit inFlight = switch (config.extra("LIMIT", "own")) {
                    case "own" -> db.inFlightLimit(config.engines(), System.err);
                    case "gradient2" -> db.gradient2Limit(config.engines(), System.err);
                    default -> throw new IllegalArgumentException("LIMIT must be own or gradient2, not '"
                            + config.extra("LIMIT", "own") + "'");
                };
                return (mode, stats) -> db.concurrentWriter(mode, stats, inFlight);
            });

    private Main() {
    }

    /** The contract's settings, with DB_POOL's default this design's. */
    public static Config config(Map<String, String> env) {
        Map<String, String> withDefault = new HashMap<>(env);
        String pool = env.get("DB_POOL");
        if (pool == null || pool.isBlank()) withDefault.put("DB_POOL", Integer.toString(DEFAULT_POOL));
        return Config.from(withDefault);
    }

    public static void main(String[] args) throws Exception {
        ThreadsService.serve(DESIGN, fromEnv -> ThreadsService.start(DESIGN, config(System.getenv())));
    }
}
