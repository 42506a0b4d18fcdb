package tradebench.spray.cluster;

import akka.actor.ActorSystem;
import akka.http.javadsl.HandlerProvider;
import java.util.concurrent.CompletableFuture;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.spray.SprayService;
import tradebench.spray.cluster.http.ClusterRoutes;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.engine.EngineSet;
import tradebench.spray.http.ApiRoutes;

/**
 * java-spray-async's service as one member of a cluster (README): engine-spray's
 * service, as java-spray-async runs it, with Cluster Sharding's partitions as its engines
 * ({@link ClusterEngines}), this member's share of the order ids, and the
 * routes that need the other members ({@link ClusterRoutes}) in front of the
 * API's.
 */
public final class ClusterMember implements SprayService.Wiring {
    /** A member serves java-spray-async's API and reports as that variant: the harness runs it as its cluster. */
    public static final String VARIANT = "java-spray-async";

    private final ClusterSettings settings;
    private ClusterEngines engines;
    private SprayService service;

    private ClusterMember(ClusterSettings settings) {
        this.settings = settings;
    }

    /** Starts the member; CLUSTER_SEEDS, CLUSTER_HOST and CLUSTER_PORT say where it and the others are. */
    public static ClusterMember start(Config config) throws Exception {
        ClusterSettings settings = ClusterSettings.from(config);
        if (settings == null) {
            throw new IllegalArgumentException("CLUSTER_SEEDS must name the members (host:port of each, this one among them)");
        }
        ClusterMember member = new ClusterMember(settings);
        member.service = SprayService.start(VARIANT, config, member);
        System.out.println(VARIANT + ": cluster member " + settings.self() + " (member " + settings.member() + " of "
                + settings.seeds().size() + " seeds: its order ids are " + settings.member() + " mod "
                + ClusterSettings.MAX_MEMBERS + ")");
        return member;
    }

    @Override
    public com.typesafe.config.Config akka() {
        return settings.akka();
    }

    @Override
    public IdSource ids(long largestStored) {
        return settings.ids(largestStored);
    }

    @Override
    public EngineSet engines(ActorSystem system, Config config, AsyncDatabase db, OrderRegistry registry, ServiceStats stats)
            throws Exception {
        engines = ClusterEngines.start(system, config, settings, db, registry, stats);
        return engines;
    }

    @Override
    public HandlerProvider server(ApiRoutes routes, EngineSet given, OrderGateway gateway, AsyncDatabase db) {
        engines.openDesk(gateway);
        return routes.around(new ClusterRoutes(engines, gateway, db).route(routes.route()));
    }

    public SprayService service() {
        return service;
    }

    public ClusterSettings settings() {
        return settings;
    }

    /** The cluster downed this member: the process is to exit (see {@link ClusterEngines#downed}). */
    public boolean downed() {
        return engines.downed();
    }

    public CompletableFuture<Void> whenDownedAndClosed() {
        return engines.whenDownedAndClosed();
    }
}
