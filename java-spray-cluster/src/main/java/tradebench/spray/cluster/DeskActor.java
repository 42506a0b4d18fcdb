package tradebench.spray.cluster;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.Props;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.wire.OrderViews;

/**
 * The member's desk ({@code /user/desk} on every member): the partitions'
 * reports about the orders this member accepted ({@link Desk}), and the
 * questions of the other members: what it knows of an order it issued (the
 * asking member reads the fills through its own read path), and this
 * member's counters.
 */
public final class DeskActor extends AbstractActor {
    public static final String NAME = "desk";

    private final Desk desk;
    private final OrderGateway gateway;
    private final ClusterSettings settings;
    private final Hosted hosted;
    private final java.util.function.BiConsumer<Integer, tradebench.model.Order> send;

    public static Props props(Desk desk, OrderGateway gateway, ClusterSettings settings, Hosted hosted,
                              java.util.function.BiConsumer<Integer, tradebench.model.Order> send) {
        return Props.create(DeskActor.class, () -> new DeskActor(desk, gateway, settings, hosted, send));
    }

    private DeskActor(Desk desk, OrderGateway gateway, ClusterSettings settings, Hosted hosted,
                      java.util.function.BiConsumer<Integer, tradebench.model.Order> send) {
        this.desk = desk;
        this.gateway = gateway;
        this.settings = settings;
        this.hosted = hosted;
        this.send = send;
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(ClusterProtocol.CycleReport.class, desk::report)
                .match(ClusterProtocol.EngineLost.class, m -> {
                    int n = desk.lost(m.engine(), m.sinceMs());
                    System.out.println("cluster: engine " + m.engine() + " was lost with its member; " + n
                            + " open orders accepted here are lost");
                })
                .match(ClusterProtocol.HandedOff.class, m -> {
                    int n = desk.resend(m.engine(), m.sinceMs(), send);
                    if (n > 0) {
                        System.out.println("cluster: engine " + m.engine() + " handed over; " + n
                                + " orders accepted here and not reported joined are sent again");
                    }
                })
                .match(ClusterProtocol.ViewRequest.class, m -> getSender().tell(view(m.id()), getSelf()))
                .match(ClusterProtocol.StatsRequest.class, m -> getSender().tell(figures(gateway.stats(), settings.self(), hosted),
                        getSelf()))
                .build();
    }

    /** What this member (the issuer) knows of an order now; the asking member reads its fills. */
    private ClusterProtocol.ViewStatus view(long id) {
        return ClusterProtocol.ViewStatus.of(OrderViews.lookup(gateway, id), gateway.config().engines());
    }

    static ClusterProtocol.MemberStats figures(ServiceStats s, String member, Hosted hosted) {
        int n = s.engines().size();
        long[] accepted = new long[n], open = new long[n], pending = new long[n], sales = new long[n], cycles = new long[n],
                failures = new long[n];
        for (int i = 0; i < n; i++) {
            EngineStats e = s.engine(i);
            accepted[i] = e.acceptedCount();
            open[i] = e.openOrders();
            pending[i] = e.pendingOrders();
            sales[i] = e.salesPersisted();
            cycles[i] = e.cycles();
            failures[i] = e.persistenceFailures();
        }
        return new ClusterProtocol.MemberStats(member, s.uptimeMs(), s.rejectedCount(), s.overloadedCount(),
                s.salesLastMinute(), accepted, open, pending, sales, cycles, failures, hosted.engines());
    }

    /** The desk of member {@code i}, for a {@code tell} or an {@code ask}. */
    static String path(ClusterSettings settings, int i) {
        return settings.address(i) + "/user/" + NAME;
    }

    static ActorRef none() {
        return ActorRef.noSender();
    }
}
