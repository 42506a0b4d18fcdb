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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ReadPath;
import tradebench.engine.ServiceStats;
import tradebench.engine.Shutdown;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.engine.EngineSet;
import tradebench.spray.http.ApiRoutes;
import tradebench.spray.http.RegisteredMethods;

/**
 * The service of the Akka HTTP designs (java-spray-async, and each member of its
 * cluster, java-spray-cluster), wired in the order every variant follows: config →
 * database → ids → registry/stats → engines → HTTP → stats line → shutdown.
 * Everything runs on the actor system's default dispatcher. Tests start it in
 * process; each variant's {@code Main} starts it and drains it on SIGTERM
 * ({@link #drainOnSignal}, {@link #exitAfterDrain}).
 *
 * <p>What the service is made of beyond that order (its engines, its ids, the
 * routes in front of the API's) is a {@link Wiring}, which each variant holds with
 * its name: java-spray-async's, one actor per engine; a cluster member's, Cluster
 * Sharding's partitions. This module knows none of them.
 */
public final class SprayService {
    /** The actor system's name. */
    public static final String SYSTEM = "tradebench";
    private static final long DB_WAIT_MS = 60_000;

    /** The parts of the service that a variant built on it chooses. */
    public interface Wiring {
        /** Akka settings on top of application.conf (and of DISPATCHER_THREADS' pool size). */
        com.typesafe.config.Config akka();

        /** The order ids this process issues, above the largest one stored. */
        IdSource ids(long largestStored);

        /** The engines, started. */
        EngineSet engines(ActorSystem system, Config config, AsyncDatabase db, OrderRegistry registry, ServiceStats stats)
                throws Exception;

        /** What answers HTTP: the API's routes, or routes of its own in front of them. */
        HandlerProvider server(ApiRoutes routes, EngineSet engines, OrderGateway gateway, AsyncDatabase db);
    }

    private final String variant;
    private final ActorSystem system;
    private final Config config;
    private final ServiceStats stats;
    private final OrderGateway gateway;
    private final ServerBinding binding;

    private SprayService(String variant, ActorSystem system, Config config, ServiceStats stats, OrderGateway gateway,
                         ServerBinding binding) {
        this.variant = variant;
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

    /** The service of the variant named {@code variant} (its stats, its start-up and exit lines) with its wiring. */
    public static SprayService start(String variant, Config given, Wiring wiring) throws Exception {
        Config config = withPoolDefault(given);
        ActorSystem system = ActorSystem.create(SYSTEM, akkaSettings(config, wiring.akka()));
        try {
            AsyncDatabase db = new AsyncDatabase(config, system.dispatcher(), system.scheduler());
            IdSource ids = wiring.ids(db.largestStoredOrderId(DB_WAIT_MS));
            OrderRegistry registry = new OrderRegistry();
            ServiceStats stats = new ServiceStats(variant, config.engines());
            EngineSet engines = wiring.engines(system, config, db, registry, stats);
            OrderGateway gateway = new OrderGateway(config, ids, registry, stats, engines);
            HandlerProvider server = wiring.server(new ApiRoutes(gateway, db, engines::crash), engines, gateway, db);
            ServerBinding binding = Http.get(system).newServerAt(config.extra("BIND", "0.0.0.0"), config.port())
                    .withSettings(RegisteredMethods.serverSettings(system)).bind(server).toCompletableFuture().get(30, TimeUnit.SECONDS);
            Cancellable statsLine = system.scheduler().scheduleAtFixedRate(Duration.ofSeconds(5), Duration.ofSeconds(5),
                    () -> System.out.println(stats.line()), system.dispatcher());
            SprayService service = new SprayService(variant, system, config, stats, gateway, binding);
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
                // after terminate() no request is half-way through the gateway: every admitted order was told
                binding.terminate(Duration.ofSeconds(3))
                        .thenCompose(t -> engines.drain(drainTimeout))
                        .thenApply(v -> Done.getInstance()));
        cs.addTask(CoordinatedShutdown.PhaseServiceStop(), "stop-stats-line", () -> {
            statsLine.cancel();
            return CompletableFuture.completedFuture(Done.getInstance());
        });
        cs.addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "close-database", () ->
                db.closeAsync().thenApply(v -> Done.getInstance()));
    }

    /** SIGTERM: stop accepting, finish the cycle, store every pending sale; returns when all is stored. */
    public void drain() {
        CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.jvmExitReason()).toCompletableFuture().join();
        system.getWhenTerminated().toCompletableFuture().join();
    }

    /**
     * SIGTERM (or Ctrl-C) drains the service and prints its exit line; the
     * returned latch opens once it is printed. Prints the "listening" line.
     */
    public CountDownLatch drainOnSignal() {
        CountDownLatch exitLinePrinted = new CountDownLatch(1);
        Shutdown.onSignal(() -> {
            drain();
            System.out.println(stats.exitLine());
            exitLinePrinted.countDown();
        });
        System.out.println(variant + " listening on port " + port() + " (" + config.describe() + " "
                + ReadPath.of(config).describe() + " dispatcherThreads=" + dispatcherThreads() + ")");
        return exitLinePrinted;
    }

    /**
     * The actor system has stopped. Only Shutdown ends the process: its thread
     * (not a daemon) drains, prints the exit line and calls System.exit with
     * the code. If the system stopped with no drain under way (it failed on
     * its own), exits 1 instead of leaving a process that serves nothing.
     */
    public void exitAfterDrain(CountDownLatch exitLinePrinted) throws InterruptedException {
        if (!exitLinePrinted.await(60, TimeUnit.SECONDS)) {
            System.err.println(variant + ": the actor system stopped without a drain");
            System.exit(1);
        }
        Thread.currentThread().join(); // Shutdown's thread exits the JVM (0, or 1 if the drain failed)
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

    /** DISPATCHER_THREADS (default: one per core) sizes the one pool everything runs on; OWN adds to application.conf. */
    public static com.typesafe.config.Config akkaSettings(Config config, com.typesafe.config.Config own) {
        int threads = config.extraInt("DISPATCHER_THREADS", Runtime.getRuntime().availableProcessors(), 1, 256);
        return ConfigFactory.parseString("akka.actor.default-dispatcher.thread-pool-executor.fixed-pool-size = " + threads)
                .withFallback(own).withFallback(ConfigFactory.load()).resolve();
    }
}
