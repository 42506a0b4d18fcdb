package tradebench.threads;

import java.util.function.Supplier;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.engine.ThreadKind;
import tradebench.http.ApiServlet;
import tradebench.http.TomcatServer;
import tradebench.model.Market;
import tradebench.model.OrderBookMarket;
import tradebench.threads.engine.EngineThreads;

/**
 * The java-threads service, wired in the order every variant follows:
 * config → database → ids → registry/stats → engines → HTTP → stats line.
 * {@link Main} adds the signal handling; tests start and drain it directly.
 */
public final class ThreadsService {
    public static final String VARIANT = "java-threads";
    /** How long start-up waits for the database (the launcher's health check waits 90 s). */
    private static final long DB_WAIT_MS = 60_000;

    private final Config config;
    private final Database db;
    private final ServiceStats stats;
    private final EngineThreads engines;
    private final OrderGateway gateway;
    private final TomcatServer http;
    private final StatsLine statsLine;

    private ThreadsService(Config config, Database db, ServiceStats stats, EngineThreads engines,
                           OrderGateway gateway, TomcatServer http, StatsLine statsLine) {
        this.config = config;
        this.db = db;
        this.stats = stats;
        this.engines = engines;
        this.gateway = gateway;
        this.http = http;
        this.statsLine = statsLine;
    }

    public static ThreadsService start(Config config) throws Exception {
        return start(config, OrderBookMarket::new);
    }

    static ThreadsService start(Config config, Supplier<Market> markets) throws Exception {
        ThreadKind.of(config); // a bad THREADS stops us before anything starts
        Database db = new Database(config);
        try {
            IdSource ids = new IdSource(db.largestStoredOrderId(DB_WAIT_MS));
            OrderRegistry registry = new OrderRegistry();
            ServiceStats stats = new ServiceStats(VARIANT, config.engines());
            EngineThreads engines = EngineThreads.start(config, db, registry, stats, markets);
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);
            TomcatServer http = TomcatServer.start(config, new ApiServlet(gateway, db, engines::crash));
            StatsLine statsLine = StatsLine.every(5, stats, System.out);
            return new ThreadsService(config, db, stats, engines, gateway, http, statsLine);
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

    public String describe() {
        return VARIANT + " on port " + http.port() + ": " + config.describe() + " threads="
                + ThreadKind.of(config).wire() + " " + TomcatServer.describe(config);
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
