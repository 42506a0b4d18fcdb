package tradebench.spray.cluster;

import akka.actor.AbstractActorWithTimers;
import akka.actor.ActorRef;
import akka.actor.ActorSelection;
import akka.actor.Props;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tradebench.engine.Cycle;
import tradebench.engine.EngineProtocol.Run;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderRegistry;
import tradebench.engine.TradingEngine;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.model.Side;
import tradebench.spray.cluster.db.HandoverStore;
import tradebench.spray.engine.EngineCycle;

/**
 * One engine partition as a sharded entity: java-spray-async's engine cycle
 * ({@link EngineCycle}, as its {@code EngineActor} runs it: join, time out,
 * trade, store, only then the next cycle {@code DELAY_MS} later) on whichever
 * member Cluster Sharding places it, plus what a partition that moves needs:
 * <ul>
 * <li>at start, it claims its row of {@code ENGINE_HANDOVER}
 *     ({@link HandoverStore}) before its first cycle: orders handed over by its
 *     predecessor join its market first; a predecessor that never handed over
 *     was lost in a crash, and every member is told ({@link ClusterProtocol.EngineLost});</li>
 * <li>after each cycle's sales are stored it reports to each issuing member
 *     the orders it joined and those that left ({@link ClusterProtocol.CycleReport});</li>
 * <li>on {@link ClusterProtocol.HandOff} (its member leaves, or the shard is
 *     rebalanced) it lets the cycle under way finish and its sales be stored,
 *     writes its open orders and the orders not joined yet, and stops.</li>
 * </ul>
 * Its sales and counters are the hosting member's ({@code /stats}, exit line).
 */
public final class EngineEntity extends AbstractActorWithTimers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RETRY = Duration.ofSeconds(1);
    /** Ids per report message at most: ~9 bytes each in CBOR, far below Artery's 256 KiB frames. */
    private static final int REPORT_IDS = 8000;

    /** An order as a hand-over writes it. */
    public record HeldOrder(long id, boolean buy, String userId, int productId, long quantity, long remaining, long priceCents,
                     long arrivalMs) {
        static HeldOrder of(Order o) {
            return new HeldOrder(o.id, o.side == Side.BUY, o.userId, o.productId, o.quantity, o.remaining(), o.priceCents,
                    o.arrivalMs);
        }

        public Order toOrder() {
            return Order.resumed(id, buy ? Side.BUY : Side.SELL, userId, productId, quantity, remaining, priceCents, arrivalMs);
        }
    }

    private enum Claim { INSTANCE }

    private record Claimed(HandoverStore.Claim claim) {
    }

    private enum Saved { INSTANCE }

    private final ClusterNode node;
    private final int engine;
    private final long startMs = System.currentTimeMillis();
    private final OrderBookMarket market = new OrderBookMarket();
    private final EngineStats stats;
    private final EngineCycle cycle;
    /**
     * The ids of the orders accepted before this incarnation started that it
     * has taken in (handed over, or arrived): a hand-over makes the issuers
     * send such orders again, and a second copy is dropped. Bounded by the
     * orders on their way when the partition moved.
     */
    private final java.util.Set<Long> before = new java.util.HashSet<>();
    /** When the hand-off began (the HandOff message): the issuers send again what they sent before. */
    private long handOffMs;
    private final Map<Integer, ActorSelection> desks = new HashMap<>();
    private boolean claimed;
    private boolean runScheduled;
    private boolean handingOff;
    private boolean saving;
    /** {@link ClusterProtocol.Find}s that came before the claim: answered once the hand-over row is read. */
    private final List<Map.Entry<ActorRef, Long>> findsBeforeClaim = new ArrayList<>();

    public static Props props(ClusterNode node) {
        return Props.create(EngineEntity.class, () -> new EngineEntity(node));
    }

    private EngineEntity(ClusterNode node) {
        this.node = node;
        this.engine = Integer.parseInt(getSelf().path().name()); // the entity id is the engine's number
        this.stats = node.stats().engine(engine);
        // statuses are the issuers' business (CycleReport): a registry that keeps nothing; INBOX_LIMIT is
        // counted on the issuing members (Desk), which the reports release
        TradingEngine trading = new TradingEngine(market, node.config().timeoutMs(), stats, new OrderRegistry(0));
        this.cycle = new EngineCycle(engine, trading, node.writer(stats), null, node.config().delayMs());
    }

    @Override
    public void preStart() {
        node.hosted().add(engine);
        getSelf().tell(Claim.INSTANCE, ActorRef.noSender());
    }

    @Override
    public void postStop() {
        node.hosted().remove(engine);
        stats.openOrders(0);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(ClusterProtocol.NewOrder.class, m -> {
                    if (m.arrivalMs() < startMs && !before.add(m.id())) return; // a copy sent again after a hand-over
                    cycle.arrive(m.toOrder());
                    scheduleRun();
                })
                .match(ClusterProtocol.Wake.class, m -> {
                })
                .match(ClusterProtocol.Find.class, m -> {
                    if (claimed) getSender().tell(new ClusterProtocol.Held(held(m.id())), getSelf());
                    else findsBeforeClaim.add(Map.entry(getSender(), m.id()));
                })
                .match(ClusterProtocol.Crash.class, m -> {
                    cycle.crashNext();
                    scheduleRun();
                })
                .match(Claim.class, m -> claim())
                .match(Claimed.class, this::onClaimed)
                .match(Run.class, m -> onRun())
                .match(EngineCycle.Stored.class, this::onStored)
                .match(ClusterProtocol.HandOff.class, m -> {
                    if (!handingOff) handOffMs = System.currentTimeMillis();
                    handingOff = true;
                    handOff();
                })
                .match(Saved.class, m -> {
                    // after every report of this incarnation (same sender, so they arrive first)
                    for (int i = 0; i < node.settings().seeds().size(); i++) {
                        desk(i).tell(new ClusterProtocol.HandedOff(engine, handOffMs), getSelf());
                    }
                    getContext().stop(getSelf());
                })
                .build();
    }

    private void claim() {
        ActorRef self = getSelf(); // the callback runs on another thread: nothing of the actor's context there
        node.handover().claim(engine).whenComplete((c, e) -> {
            if (e != null) {
                System.err.println("engine " + engine + ": cannot read its hand-over row (" + e + "); trying again");
                node.system().scheduler().scheduleOnce(RETRY, self, Claim.INSTANCE, node.system().dispatcher(),
                        ActorRef.noSender());
            } else {
                self.tell(new Claimed(c), ActorRef.noSender());
            }
        });
    }

    private void onClaimed(Claimed m) {
        claimed = true;
        HandoverStore.Claim c = m.claim();
        if (c.previous() == HandoverStore.Previous.HANDED_OVER && c.orders() != null) {
            List<HeldOrder> held;
            try {
                held = JSON.readValue(c.orders(), new TypeReference<List<HeldOrder>>() { });
            } catch (Exception e) {
                throw new IllegalStateException("engine " + engine + ": unreadable hand-over row", e);
            }
            List<Order> taken = new ArrayList<>(held.size());
            for (HeldOrder h : held) {
                if (before.add(h.id())) taken.add(h.toOrder()); // else its copy, sent again, arrived first
            }
            cycle.arriveFirst(taken); // older than anything that arrived meanwhile
            System.out.println("cluster: engine " + engine + " started on " + node.settings().self() + " with "
                    + taken.size() + " orders handed over");
        } else if (c.previous() == HandoverStore.Previous.RUNNING) {
            System.out.println("cluster: engine " + engine + " started on " + node.settings().self()
                    + " after its previous member was lost: its open orders are lost");
            for (int i = 0; i < node.settings().seeds().size(); i++) {
                desk(i).tell(new ClusterProtocol.EngineLost(engine, startMs), getSelf());
            }
        } else {
            System.out.println("cluster: engine " + engine + " started on " + node.settings().self());
        }
        for (Map.Entry<ActorRef, Long> f : findsBeforeClaim) f.getKey().tell(new ClusterProtocol.Held(held(f.getValue())), getSelf());
        findsBeforeClaim.clear();
        if (handingOff) handOff();
        else if (!cycle.arrived().isEmpty()) scheduleRun();
    }

    /** Order {@code id} as this partition holds it (open in the market, or not joined yet), or null. */
    private HeldOrder held(long id) {
        for (Order o : cycle.arrived()) {
            if (o.id == id) return HeldOrder.of(o);
        }
        Order[] found = new Order[1];
        market.forEachOpen(o -> {
            if (o.id == id) found[0] = o;
        });
        return found[0] == null ? null : HeldOrder.of(found[0]);
    }

    private void onRun() {
        runScheduled = false;
        if (!claimed || cycle.persisting() || saving) return;
        EngineCycle.Stored none = cycle.run(getSelf());
        if (none != null) onStored(none);
    }

    private void onStored(EngineCycle.Stored m) {
        cycle.stored(m);
        report(m.joined(), m.cycle());
        if (handingOff) handOff();
        else if (cycle.hasWork()) scheduleRun();
    }

    /** To each issuing member: the orders of this cycle it joined, timed out and filled. */
    private void report(List<Order> joined, Cycle cycle) {
        Map<Integer, Ids[]> by = new HashMap<>();
        List<List<Order>> kinds = List.of(joined, cycle.timedOut(), cycle.filled());
        for (int k = 0; k < 3; k++) {
            for (Order o : kinds.get(k)) {
                by.computeIfAbsent(ClusterSettings.issuerOf(o.id), i -> new Ids[] {new Ids(), new Ids(), new Ids()})[k].add(o.id);
            }
        }
        by.forEach((issuer, lists) -> {
            if (issuer >= node.settings().seeds().size()) return;
            long[] j = lists[0].toArray(), t = lists[1].toArray(), f = lists[2].toArray();
            ActorSelection desk = desk(issuer);
            if (j.length + t.length + f.length <= REPORT_IDS) {
                desk.tell(new ClusterProtocol.CycleReport(engine, j, t, f), getSelf());
                return;
            }
            // a large cycle (a backlog): several messages well below Artery's frame size, joined ones first
            long[] none = new long[0];
            for (int from = 0; from < j.length; from += REPORT_IDS) {
                desk.tell(new ClusterProtocol.CycleReport(engine, slice(j, from), none, none), getSelf());
            }
            for (int from = 0; from < t.length; from += REPORT_IDS) {
                desk.tell(new ClusterProtocol.CycleReport(engine, none, slice(t, from), none), getSelf());
            }
            for (int from = 0; from < f.length; from += REPORT_IDS) {
                desk.tell(new ClusterProtocol.CycleReport(engine, none, none, slice(f, from)), getSelf());
            }
        });
    }

    private static long[] slice(long[] a, int from) {
        return java.util.Arrays.copyOfRange(a, from, Math.min(a.length, from + REPORT_IDS));
    }

    /** A growable list of ids. */
    private static final class Ids {
        private long[] a = new long[16];
        private int n;

        void add(long id) {
            if (n == a.length) a = java.util.Arrays.copyOf(a, n * 2);
            a[n++] = id;
        }

        long[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }

    /** The stop message of a hand-off: once no cycle is being stored, write the open orders, then stop. */
    private void handOff() {
        if (!claimed || cycle.persisting() || saving) return; // Claimed or Stored calls again
        saving = true;
        List<Order> open = new ArrayList<>(market.openOrders() + cycle.arrived().size());
        market.forEachOpen(open::add);
        open.sort(Comparator.comparingLong((Order o) -> o.arrivalMs).thenComparingLong(o -> o.id));
        open.addAll(cycle.arrived());
        List<HeldOrder> held = new ArrayList<>(open.size());
        for (Order o : open) held.add(HeldOrder.of(o));
        String json;
        try {
            json = JSON.writeValueAsString(held);
        } catch (Exception e) {
            throw new IllegalStateException("engine " + engine + ": cannot write its open orders", e);
        }
        save(getSelf(), json, held.size());
    }

    /** Writes the row; runs again on the scheduler after a failure (never touching the actor's state). */
    private void save(ActorRef self, String json, int n) {
        node.handover().save(engine, json).whenComplete((v, e) -> {
            if (e != null) {
                System.err.println("engine " + engine + ": cannot write its hand-over row (" + e + "); trying again");
                node.system().scheduler().scheduleOnce(RETRY, () -> save(self, json, n), node.system().dispatcher());
            } else {
                System.out.println("cluster: engine " + engine + " handed over from " + node.settings().self() + " with "
                        + n + " open orders");
                self.tell(Saved.INSTANCE, ActorRef.noSender());
            }
        });
    }

    private void scheduleRun() {
        if (runScheduled || !claimed || handingOff) return;
        runScheduled = true;
        cycle.schedule(getSelf(), getTimers());
    }

    private ActorSelection desk(int member) {
        return desks.computeIfAbsent(member, i -> getContext().actorSelection(DeskActor.path(node.settings(), i)));
    }
}
