package tradebench.threads;

import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.EngineStats;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.SalesPersister;
import tradebench.engine.ServiceStats;
import tradebench.engine.Shutdown;
import tradebench.engine.Startup;
import tradebench.engine.ThreadKind;
import tradebench.http.ApiServlet;
import tradebench.http.TomcatServer;
import tradebench.model.Market;
import tradebench.model.OrderBookMarket;
import tradebench.threads.engine.EngineThreads;

/**
 * The service of the blocking designs on engine threads (java-threads, java-virtual),
 * wired in the order every variant follows:
 * config → database → ids → registry/stats → engines → HTTP → stats line.
 * Each variant's {@code Main} adds the signal handling; tests start and drain it directly.
 *
 * <p>A {@link Design} says what differs in a variant built on the same blocking
 * engine threads: its name, the threads it runs on, and how its engines store
 * their sales (java-threads: THREADS, one INSERT after another; java-virtual:
 * virtual threads, a cycle's inserts in flight together). Each variant's
 * {@code Main} holds its design; this module knows none of them.
 */
public final class ThreadsService {
    /** What a variant on these engine threads chooses. */
    public record Design(String variant, Function<Config, ThreadKind> threads,
                         Function<Config, Database> database, Writers writers) {
    }

    /** Each engine's writer, made once the database is open (one call per engine). */
    public interface Writers {
        BiFunction<Config.PersistMode, EngineStats, SalesPersister> of(Config config, Database db);
    }

    /** How long start-up waits for the database (the launcher's health check waits 90 s). */
    private static final long DB_WAIT_MS = 60_000;

    private final Design design;
    private final Config config;
    private final Database db;
    private final ServiceStats stats;
    private final EngineThreads engines;
    private final OrderGateway gateway;
    private final TomcatServer http;
    private final StatsLine statsLine;

    private ThreadsService(Design design, Config config, Database db, ServiceStats stats, EngineThreads engines,
                           OrderGateway gateway, TomcatServer http, StatsLine statsLine) {
        this.design = design;
        this.config = config;
        this.db = db;
        this.stats = stats;
        this.engines = engines;
        this.gateway = gateway;
        this.http = http;
        this.statsLine = statsLine;
    }

    public static ThreadsService start(Design design, Config config) throws Exception {
        return start(design, config, OrderBookMarket::new);
    }

    public static ThreadsService start(Design design, Config config, Supplier<Market> markets) throws Exception {
        ThreadKind kind = design.threads().apply(config); // a bad THREADS stops us before anything starts
        Database db = design.database().apply(config);
        try {
            IdSource ids = new IdSource(db.largestStoredOrderId(DB_WAIT_MS));
            OrderRegistry registry = new OrderRegistry();
            ServiceStats stats = new ServiceStats(design.variant(), config.engines());
            EngineThreads engines = EngineThreads.start(config, kind, registry, stats, markets,
                    design.writers().of(config, db));
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);
            TomcatServer http = TomcatServer.start(config, kind, new ApiServlet(gateway, db, engines::crash));
            StatsLine statsLine = StatsLine.every(5, stats, System.out);
            return new ThreadsService(design, config, db, stats, engines, gateway, http, statsLine);
        } catch (Exception | Error e) {
            db.close();
            throw e;
        }
    }

    /**
     * SIGTERM (contract section 3): stop accepting (new orders get 503 "shutting
     * down"), let every engine run cycles until its inbox is empty and every
     * sale is stored, then stop HTTP and the database pool. Returns the exit line.
     */
    public String drain() {
        gateway.close();
        try {
            engines.drain();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while draining the engines", e);
        }
        // HTTP stops last: /stats stays readable during the drain, and late orders get a 503, not a reset.
        http.stop();
        statsLine.close();
        db.close();
        return stats.exitLine();
    }

    /**
     * A variant's main: start it (a bad setting exits 2), print its start-up line, drain it on SIGTERM or
     * SIGINT (contract section 3) and wait for the drain: virtual engine threads do not keep the JVM alive.
     */
    public static void serve(Design design, Startup.Starter<ThreadsService> starter) throws InterruptedException {
        ThreadsService service = Startup.startOrExit(design.variant(), starter);
        CountDownLatch drained = new CountDownLatch(1);
        Shutdown.onSignal(() -> {
            System.out.println(service.drain());
            drained.countDown();
        });
        System.out.println(service.describe());
        drained.await();
    }

    public String describe() {
        return design.variant() + " on port " + http.port() + ": " + config.describe() + " threads="
                + design.threads().apply(config).wire() + " " + TomcatServer.describe(config);
    }

    public int port() {
        return http.port();
    }

    public OrderGateway gateway() {
        return gateway;
    }

    public ServiceStats stats() {
        return stats;
    }

    EngineThreads engines() {
        return engines;
    }
}
