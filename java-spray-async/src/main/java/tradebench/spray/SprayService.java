package tradebench.spray;

import akka.Done;
import akka.actor.ActorSystem;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import akka.http.javadsl.Http;
import akka.http.javadsl.HandlerProvider;
import akka.http.javadsl.ServerBinding;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.spray.cluster.ClusterEngines;
import tradebench.spray.cluster.ClusterSettings;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.engine.EngineSet;
import tradebench.spray.engine.Engines;
import tradebench.spray.http.ApiRoutes;
import tradebench.spray.http.ClusterRoutes;
import tradebench.spray.http.RegisteredMethods;

/**
 * The whole service, wired in the order every variant follows: config →
 * database → ids → registry/stats → engines → HTTP → stats line → shutdown.
 * Everything runs on the actor system's default dispatcher. Tests start it in
 * process; {@link Main} starts it and drains it on SIGTERM.
 *
 * <p>With {@code CLUSTER_SEEDS} set it is one member of a cluster (README,
 * "Cluster mode"): the engines are Cluster Sharding's entities
 * ({@link ClusterEngines}), ids are this member's share, and the routes that
 * need the other members ({@link ClusterRoutes}) come first. Without it no
 * remoting starts and nothing of the cluster package runs.
 */
public final class SprayService {
    public static final String VARIANT = "java-spray-async";
    private static final long DB_WAIT_MS = 60_000;

    private final ActorSystem system;
    private final Config config;
    private final ServiceStats stats;
    private final OrderGateway gateway;
    private final ServerBinding binding;
    /** Completed once a member the cluster downed has closed its pool (see {@link #whenDownedAndClosed}). */
    private final CompletableFuture<Void> downedAndClosed = new CompletableFuture<>();

    private SprayService(ActorSystem system, Config config, ServiceStats stats, OrderGateway gateway, ServerBinding binding) {
        this.system = system;
        this.config = config;
        this.stats = stats;
        this.gateway = gateway;
        this.binding = binding;
    }

    /**
     * DB_POOL's default here is {@value #DEFAULT_POOL} (at least ENGINES + 4): a connection costs this
     * service no thread, and per-sale fires a cycle's inserts on as many connections as it can get.
     */
    static final int DEFAULT_POOL = 64;

    public static SprayService start(Config given) throws Exception {
        Config config = withPoolDefault(given);
        ClusterSettings cluster = ClusterSettings.from(config); // null: alone, no remoting
        ActorSystem system = ActorSystem.create(ClusterSettings.SYSTEM, akkaSettings(config, cluster));
        try {
            AsyncDatabase db = new AsyncDatabase(config, system.dispatcher(), system.scheduler());
            long largestStored = db.largestStoredOrderId(DB_WAIT_MS);
            IdSource ids = cluster == null ? new IdSource(largestStored) : cluster.ids(largestStored);
            OrderRegistry registry = new OrderRegistry();
            ServiceStats stats = new ServiceStats(VARIANT, config.engines());
            EngineSet engines = cluster == null ? Engines.start(system, config, db, registry, stats)
                    : ClusterEngines.start(system, config, cluster, db, registry, stats);
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);
            ApiRoutes routes = new ApiRoutes(gateway, db, engines::crash);
            HandlerProvider server = routes;
            if (engines instanceof ClusterEngines ce) { // the cluster's /orders/{id}, /stats, /health in front
                ce.openDesk(gateway);
                server = routes.around(new ClusterRoutes(ce, gateway, db).route(routes.route()));
            }
            ServerBinding binding = Http.get(system).newServerAt(config.extra("BIND", "0.0.0.0"), config.port())
                    .withSettings(RegisteredMethods.serverSettings(system)).bind(server).toCompletableFuture().get(30, TimeUnit.SECONDS);
            Cancellable statsLine = system.scheduler().scheduleAtFixedRate(Duration.ofSeconds(5), Duration.ofSeconds(5),
                    () -> System.out.println(stats.line()), system.dispatcher());
            if (cluster != null) {
                System.out.println(VARIANT + ": cluster member " + cluster.self() + " (member " + cluster.member() + " of "
                        + cluster.seeds().size() + " seeds: its order ids are " + cluster.member() + " mod "
                        + ClusterSettings.MAX_MEMBERS + ")");
            }
            SprayService service = new SprayService(system, config, stats, gateway, binding);
            service.drainOnShutdown(engines, db, statsLine);
            return service;
        } catch (Exception | Error e) {
            system.terminate();
            throw e;
        }
    }

    /**
     * The drain as phases of Akka's coordinated shutdown: refuse new orders and
     * let the requests under way finish; then every engine runs cycles until its
     * inbox is empty and its sales are stored; then the pool closes.
     */
    private void drainOnShutdown(EngineSet engines, AsyncDatabase db, Cancellable statsLine) {
        CoordinatedShutdown cs = CoordinatedShutdown.get(system);
        Duration drainTimeout = Duration.ofMillis(cs.timeout(CoordinatedShutdown.PhaseServiceRequestsDone()).toMillis()).minusSeconds(1);
        cs.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "refuse-orders", () -> {
            gateway.close(); // later orders get 503 "shutting down", also on kept-alive connections
            return CompletableFuture.completedFuture(Done.getInstance());
        });
        cs.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "drain-engines", () ->
                // after terminate() no request is half-way through the gateway: every admitted order was told.
                // A member the cluster downed has no partition left to drain into (its orders on their way
                // are lost: contract section 9), so it does not wait for them.
                binding.terminate(Duration.ofSeconds(3))
                        .thenCompose(t -> downed() ? CompletableFuture.<Void>completedFuture(null) : engines.drain(drainTimeout))
                        .thenApply(v -> Done.getInstance()));
        cs.addTask(CoordinatedShutdown.PhaseServiceStop(), "stop-stats-line", () -> {
            statsLine.cancel();
            return CompletableFuture.completedFuture(Done.getInstance());
        });
        cs.addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "close-database", () ->
                db.closeAsync().thenApply(v -> Done.getInstance()));
        cs.addTask(CoordinatedShutdown.PhaseActorSystemTerminate(), "exit-when-downed", () -> {
            if (downed()) downedAndClosed.complete(null);
            return CompletableFuture.completedFuture(Done.getInstance());
        });
    }

    /** SIGTERM: stop accepting, finish the cycle, store every pending sale; returns when all is stored. */
    public void drain() {
        CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.jvmExitReason()).toCompletableFuture().join();
        system.getWhenTerminated().toCompletableFuture().join();
    }

    /**
     * The cluster downed this member (the Split Brain Resolver: it was cut off
     * from the majority, or taken for crashed): Akka's coordinated shutdown has
     * stopped its partitions and refuses orders; the process is to exit.
     */
    public boolean downed() {
        return CoordinatedShutdown.get(system).getShutdownReason()
                .filter(r -> r == CoordinatedShutdown.clusterDowningReason()).isPresent();
    }

    /**
     * Completes when a member the cluster downed has nothing left to do: its
     * partitions stopped, its pool closed. The actor system's own termination
     * may then still wait for connections to the members it was cut off from
     * (seconds, or until the cut heals).
     */
    public CompletableFuture<Void> whenDownedAndClosed() {
        return downedAndClosed;
    }

    public java.util.concurrent.CompletableFuture<?> whenTerminated() {
        return system.getWhenTerminated().toCompletableFuture();
    }

    public int dispatcherThreads() {
        return system.settings().config().getInt("akka.actor.default-dispatcher.thread-pool-executor.fixed-pool-size");
    }

    /** The actor system the service runs on (its effective configuration). */
    public ActorSystem system() {
        return system;
    }

    public int port() {
        return binding.localAddress().getPort();
    }

    public ServiceStats stats() {
        return stats;
    }

    public OrderGateway gateway() {
        return gateway;
    }

    static Config withPoolDefault(Config c) {
        String set = c.env().get("DB_POOL");
        if (set != null && !set.isBlank()) return c;
        return new Config(c.port(), c.engines(), c.delayMs(), c.timeoutMs(), c.products(), c.inboxLimit(), c.persist(),
                c.dbHost(), c.dbPort(), c.dbName(), c.dbUser(), c.dbPassword(), Math.max(c.dbPool(), DEFAULT_POOL), c.env());
    }

    public Config config() {
        return config;
    }

    /**
     * DISPATCHER_THREADS (default: one per core) sizes the one pool everything runs on;
     * a cluster member adds its remoting, the seeds and cluster.conf.
     */
    static com.typesafe.config.Config akkaSettings(Config config, ClusterSettings cluster) {
        int threads = config.extraInt("DISPATCHER_THREADS", Runtime.getRuntime().availableProcessors(), 1, 256);
        com.typesafe.config.Config own = ConfigFactory.parseString(
                "akka.actor.default-dispatcher.thread-pool-executor.fixed-pool-size = " + threads);
        if (cluster != null) own = own.withFallback(cluster.akka());
        return own.withFallback(ConfigFactory.load()).resolve();
    }
}
