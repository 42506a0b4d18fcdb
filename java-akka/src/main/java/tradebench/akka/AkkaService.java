package tradebench.akka;

import akka.Done;
import akka.actor.ActorSystem;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import tradebench.akka.engine.Engines;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.http.ApiServlet;
import tradebench.http.TomcatServer;
import tradebench.model.Market;
import tradebench.model.OrderBookMarket;

/**
 * The java-akka service, wired in the order every variant follows:
 * config → database → ids → registry/stats → engines → HTTP → stats line.
 * {@link Main} adds the signal handling; tests start and drain it directly.
 *
 * <p>The drain (SIGTERM) runs in the phases of Akka's coordinated shutdown:
 * <ol>
 * <li>service-unbind: the gateway refuses every new order ("shutting down"),
 *     then Tomcat stops (it lets the requests under way finish);</li>
 * <li>service-requests-done: each engine joins what waits, trades, and stores
 *     every sale;</li>
 * <li>the actor system terminates; then the pool closes and the exit line is printed.</li>
 * </ol>
 */
public final class AkkaService {
    public static final String VARIANT = "java-akka";
    /** How long start-up waits for the database (the launcher's health check waits 90 s). */
    private static final long DB_WAIT_MS = 60_000;

    private final Config config;
    private final AkkaSettings akka;
    private final ActorSystem system;
    private final Database db;
    private final ServiceStats stats;
    private final Engines engines;
    private final OrderGateway gateway;
    private final TomcatServer http;
    private volatile boolean drained;

    private AkkaService(Config config, AkkaSettings akka, ActorSystem system, Database db, ServiceStats stats,
                        Engines engines, OrderGateway gateway, TomcatServer http) {
        this.config = config;
        this.akka = akka;
        this.system = system;
        this.db = db;
        this.stats = stats;
        this.engines = engines;
        this.gateway = gateway;
        this.http = http;
    }

    public static AkkaService start(Config config) throws Exception {
        return start(config, OrderBookMarket::new);
    }

    static AkkaService start(Config config, Supplier<Market> markets) throws Exception {
        AkkaSettings akka = AkkaSettings.from(config); // a bad DISPATCHER stops us before anything starts
        Database db = new Database(config);
        ActorSystem system = null;
        try {
            IdSource ids = new IdSource(db.largestStoredOrderId(DB_WAIT_MS));
            OrderRegistry registry = new OrderRegistry();
            ServiceStats stats = new ServiceStats(VARIANT, config.engines());
            system = ActorSystem.create("tradebench", akka.akkaConfig());
            Engines engines = Engines.start(system, config, db, registry, stats, markets, akka.dispatcher.dispatcherId());
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);
            TomcatServer http = TomcatServer.start(config, new ApiServlet(gateway, db, engines::crash));
            // Stats line on Akka's scheduler: no timer thread of our own. It stops with the actor system.
            Cancellable statsLine = system.scheduler().scheduleAtFixedRate(Duration.ofSeconds(5), Duration.ofSeconds(5),
                    () -> System.out.println(stats.line()), system.dispatcher());
            AkkaService service = new AkkaService(config, akka, system, db, stats, engines, gateway, http);
            service.drainInPhases(statsLine);
            return service;
        } catch (Exception | Error e) {
            if (system != null) system.terminate();
            db.close();
            throw e;
        }
    }

    private void drainInPhases(Cancellable statsLine) {
        CoordinatedShutdown cs = CoordinatedShutdown.get(system);
        cs.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "stop-accepting", () -> {
            gateway.close();
            http.stop();
            return CompletableFuture.completedFuture(Done.getInstance());
        });
        // A little under the phase's own timeout, so that a drain that is too slow is seen here as a failure.
        Duration phase = system.settings().config().getDuration("akka.coordinated-shutdown.phases.service-requests-done.timeout");
        Duration drainTimeout = phase.minusMillis(Math.min(1000, phase.toMillis() / 10));
        cs.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "engines-store-everything",
                () -> engines.drain(drainTimeout).thenApply(v -> {
                    drained = true;
                    statsLine.cancel();
                    return Done.getInstance();
                }));
    }

    /**
     * SIGTERM (contract section 3): stop accepting, store everything, stop.
     * Returns the exit line. Throws when an engine could not store its sales
     * in time: the process then exits 1 rather than print a false exit line.
     */
    public String drain() {
        CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.unknownReason()).toCompletableFuture().join();
        db.close();
        if (!drained) throw new IllegalStateException("the engines did not store every sale before the drain timed out");
        return stats.exitLine();
    }

    public String describe() {
        return VARIANT + " on port " + http.port() + ": " + config.describe() + " " + akka.describe()
                + " " + TomcatServer.describe(config);
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

    public ActorSystem system() {
        return system;
    }

    Engines engines() {
        return engines;
    }
}
