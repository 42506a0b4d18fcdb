package tradebench.spray.cluster;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import akka.cluster.Cluster;
import akka.cluster.sharding.ClusterSharding;
import akka.cluster.sharding.ClusterShardingSettings;
import akka.cluster.sharding.ShardRegion;
import akka.pattern.Patterns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.cluster.db.HandoverStore;
import tradebench.spray.engine.EngineSet;

/**
 * The engines of a cluster member: the ENGINES partitions are the entities of
 * one Cluster Sharding type ({@value #TYPE}), one shard each (shard id = entity
 * id = engine number), spread over the members by Akka's least-shard
 * allocation. An accepted order is admitted against its engine's INBOX_LIMIT
 * on this member ({@link Desk}) and told to the shard region, which delivers
 * it to the partition wherever it runs.
 *
 * <p>Every member tells every partition {@link ClusterProtocol.Wake} every
 * {@value #WAKE_S} s once it is Up: a partition starts (and takes over its
 * handed-over orders, or learns that its predecessor was lost) without waiting
 * for an order.
 */
public final class ClusterEngines implements EngineSet {
    public static final String TYPE = "engine";
    static final int WAKE_S = 1;
    /** A member that finds fewer than all seeds up (one is gone) starts waking partitions after this long. */
    static final int FORM_WAIT_S = 10;

    /**
     * Every seed has been up at once and the coordinator knows the shard region of each (or this member
     * has been up for {@value #FORM_WAIT_S} s): the partitions may start. Members started together so
     * share them evenly, since Akka places each new partition on the region that runs the fewest among
     * those registered at that moment. A member is up before its region registers (it first opens its
     * database and the hand-over table): woken then, every partition would go to the others, and with no
     * rebalancing it would run none until a hand-over.
     */
    private volatile boolean formed;
    /** The shard regions the coordinator knows, as last asked (-1: no answer yet). */
    private volatile int regions = -1;

    private final ActorSystem system;
    private final ClusterSettings settings;
    private final ClusterNode node;
    private final Desk desk;
    private final ActorRef region;
    private final int engines;
    private final Departures departures = new Departures();
    /** Completed once this member, downed by the cluster, has closed its pool (see {@link #whenDownedAndClosed}). */
    private final CompletableFuture<Void> downedAndClosed = new CompletableFuture<>();

    private ClusterEngines(ActorSystem system, ClusterSettings settings, ClusterNode node, Desk desk, ActorRef region, int engines) {
        this.system = system;
        this.settings = settings;
        this.node = node;
        this.desk = desk;
        this.region = region;
        this.engines = engines;
    }

    public static ClusterEngines start(ActorSystem system, Config config, ClusterSettings settings, AsyncDatabase db,
                                       OrderRegistry registry, ServiceStats stats) throws Exception {
        HandoverStore handover = new HandoverStore(db);
        handover.ensureTable().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
        ClusterNode node = new ClusterNode(system, config, settings, db, handover, stats, new Hosted());
        Desk desk = new Desk(config.engines(), config.inboxLimit(), registry, stats);
        ShardRegion.MessageExtractor extractor = new ShardRegion.MessageExtractor() {
            @Override
            public String entityId(Object message) {
                return message instanceof ClusterProtocol.ToEngine m ? Integer.toString(m.engine()) : null;
            }

            @Override
            public Object entityMessage(Object message) {
                return message;
            }

            @Override
            public String shardId(Object message) {
                if (message instanceof ClusterProtocol.ToEngine m) return Integer.toString(m.engine());
                if (message instanceof ShardRegion.StartEntity s) return s.entityId();
                return null;
            }
        };
        ClusterShardingSettings shardingSettings = ClusterShardingSettings.create(system);
        ClusterSharding sharding = ClusterSharding.get(system);
        ActorRef region = sharding.start(TYPE, EngineEntity.props(node), shardingSettings, extractor,
                sharding.defaultShardAllocationStrategy(shardingSettings), ClusterProtocol.HandOff.INSTANCE);
        ClusterEngines e = new ClusterEngines(system, settings, node, desk, region, config.engines());
        Cluster cluster = Cluster.get(system);
        java.util.concurrent.atomic.AtomicReference<Cancellable> wake = new java.util.concurrent.atomic.AtomicReference<>();
        cluster.registerOnMemberUp(() -> {
            System.out.println("cluster: member " + settings.self() + " is up (member " + settings.member() + " of "
                    + settings.seeds().size() + ")");
            long upAt = System.nanoTime();
            wake.set(system.scheduler().scheduleAtFixedRate(Duration.ZERO, Duration.ofMillis(WAKE_S * 1000L), () -> {
                if (!e.formed) {
                    e.askRegions();
                    e.formed = upMembers(cluster) >= settings.seeds().size() && e.regions >= settings.seeds().size()
                            || System.nanoTime() - upAt > Duration.ofSeconds(FORM_WAIT_S).toNanos();
                    if (e.formed) {
                        System.out.println("cluster: partitions start, " + e.regions + " shard regions known");
                    }
                }
                if (e.formed) e.wakeAll();
            }, system.dispatcher()));
        });
        // Leaving: no more Wake. The last member's region would keep them (no member left to run the
        // partitions), and a region with messages it cannot deliver does not finish its shutdown.
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "stop-waking-partitions", () -> {
            Cancellable c = wake.get();
            if (c != null) c.cancel();
            return CompletableFuture.completedFuture(akka.Done.getInstance());
        });
        // After the pool closed (the phase before): a member the cluster downed has nothing left to do.
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseActorSystemTerminate(), "exit-when-downed", () -> {
            if (e.downed()) e.downedAndClosed.complete(null);
            return CompletableFuture.completedFuture(akka.Done.getInstance());
        });
        system.actorOf(MembershipLog.props(settings.self(), e.departures), "membership-log");
        return e;
    }

    private static long upMembers(Cluster cluster) {
        long n = 0;
        for (akka.cluster.Member m : cluster.state().getMembers()) {
            if (m.status() == akka.cluster.MemberStatus.up()) n++;
        }
        return n;
    }

    /** Whether partitions may start: every seed was up at once, or this member waited long enough. */
    public boolean formed() {
        return formed;
    }

    /** The desk actor ({@code /user/desk}): once the gateway exists, since it answers views through it. */
    public void openDesk(OrderGateway gateway) {
        system.actorOf(DeskActor.props(desk, gateway, settings, node.hosted(),
                (engine, order) -> region.tell(ClusterProtocol.NewOrder.of(engine, order), ActorRef.noSender())), DeskActor.NAME);
    }

    /** Asks the coordinator how many shard regions it knows; the answer lands in {@link #regions}. */
    private void askRegions() {
        Patterns.ask(region, new ShardRegion.GetClusterShardingStats(
                        scala.concurrent.duration.FiniteDuration.create(WAKE_S, java.util.concurrent.TimeUnit.SECONDS)),
                        Duration.ofSeconds(WAKE_S + 1))
                .thenAccept(answer -> {
                    if (answer instanceof ShardRegion.ClusterShardingStats stats) regions = stats.getRegions().size();
                });
    }

    private void wakeAll() {
        for (int i = 0; i < engines; i++) region.tell(new ClusterProtocol.Wake(i), ActorRef.noSender());
    }

    /** From a request's thread: never blocks; false (503) when the engine's inbox on this member is full. */
    @Override
    public boolean offer(int engine, Order order) {
        if (!desk.admit(engine, order)) return false;
        region.tell(ClusterProtocol.NewOrder.of(engine, order), ActorRef.noSender());
        return true;
    }

    /**
     * The drain of a member that leaves: every order it admitted has been
     * joined by its partition (wherever that runs), or {@code timeout} has
     * passed (a partition on a member that crashed never reports: those
     * orders are lost). The partitions on this member then hand over in
     * Akka's {@code cluster-sharding-shutdown-region} phase, which comes after.
     * A member the cluster downed has no partition left to drain into (its
     * orders on their way are lost: contract section 9): it does not wait.
     */
    @Override
    public CompletionStage<Void> drain(Duration timeout) {
        if (downed()) return CompletableFuture.completedFuture(null);
        CompletableFuture<Void> done = new CompletableFuture<>();
        long deadline = System.nanoTime() + Math.min(timeout.toNanos(), Duration.ofSeconds(10).toNanos());
        poll(done, deadline);
        return done;
    }

    private void poll(CompletableFuture<Void> done, long deadline) {
        int left = desk.inFlight();
        if (left == 0 || System.nanoTime() > deadline) {
            if (left > 0) System.err.println("cluster: leaving with " + left + " orders no partition has reported joined");
            done.complete(null);
            return;
        }
        system.scheduler().scheduleOnce(Duration.ofMillis(50), () -> poll(done, deadline), system.dispatcher());
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

    /** Who this member saw downed or removed, and when. */
    public Departures departures() {
        return departures;
    }

    /**
     * Order {@code id} as the partition that holds it has it (open, or not
     * joined yet), or null when none does; asked of every partition. Fails when
     * one of them does not answer within {@code timeout}.
     */
    public CompletionStage<Order> findHeld(long id, Duration timeout) {
        List<CompletableFuture<Object>> asks = new ArrayList<>();
        for (int i = 0; i < engines; i++) {
            asks.add(Patterns.ask(region, new ClusterProtocol.Find(i, id), timeout).toCompletableFuture());
        }
        return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(v -> {
            for (CompletableFuture<Object> a : asks) {
                EngineEntity.HeldOrder h = ((ClusterProtocol.Held) a.join()).order();
                if (h != null) return h.toOrder();
            }
            return null;
        });
    }

    @Override
    public void crash(int n) {
        region.tell(new ClusterProtocol.Crash(n), ActorRef.noSender());
    }

    public ClusterSettings settings() {
        return settings;
    }

    public ActorSystem system() {
        return system;
    }

    public Hosted hosted() {
        return node.hosted();
    }
}
