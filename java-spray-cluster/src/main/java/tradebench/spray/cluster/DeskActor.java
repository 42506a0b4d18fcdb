package tradebench.spray.cluster;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.Props;
import akka.pattern.Patterns;
import java.util.concurrent.CompletionStage;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.spray.db.AsyncDatabase;
import tradebench.wire.Answers;
import tradebench.wire.OrderViews;

/**
 * The member's desk ({@code /user/desk} on every member): the partitions'
 * reports about the orders this member accepted ({@link Desk}), and the
 * questions of the other members: the view of an order this member issued,
 * and this member's counters.
 */
public final class DeskActor extends AbstractActor {
    public static final String NAME = "desk";

    private final Desk desk;
    private final OrderGateway gateway;
    private final AsyncDatabase db;
    private final ClusterSettings settings;
    private final Hosted hosted;
    private final java.util.function.BiConsumer<Integer, tradebench.model.Order> send;

    public static Props props(Desk desk, OrderGateway gateway, AsyncDatabase db, ClusterSettings settings, Hosted hosted,
                              java.util.function.BiConsumer<Integer, tradebench.model.Order> send) {
        return Props.create(DeskActor.class, () -> new DeskActor(desk, gateway, db, settings, hosted, send));
    }

    private DeskActor(Desk desk, OrderGateway gateway, AsyncDatabase db, ClusterSettings settings, Hosted hosted,
                      java.util.function.BiConsumer<Integer, tradebench.model.Order> send) {
        this.desk = desk;
        this.gateway = gateway;
        this.db = db;
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
                .match(ClusterProtocol.ViewRequest.class, m -> Patterns.pipe(view(m.id()), getContext().getDispatcher())
                        .to(getSender()))
                .match(ClusterProtocol.StatsRequest.class, m -> getSender().tell(figures(gateway.stats(), settings.self(), hosted),
                        getSelf()))
                .build();
    }

    /** The view of contract section 3, as this member (the issuer) answers it locally. */
    private CompletionStage<ClusterProtocol.ViewAnswer> view(long id) {
        OrderViews.Lookup lookup = OrderViews.lookup(gateway, id); // before the fills: see OrderViews
        return db.fills(id).handle((fills, e) -> {
            if (e != null) return new ClusterProtocol.ViewAnswer(503, Answers.DATABASE_UNREACHABLE);
            OrderViews.Answer a = lookup.answer(fills);
            return new ClusterProtocol.ViewAnswer(a.status(), a.body());
        });
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
