package tradebench.spray.cluster;

import akka.actor.AbstractActor;
import akka.actor.Props;
import akka.cluster.Cluster;
import akka.cluster.ClusterEvent;

/** One line on standard output per membership change this member sees (Akka's own log stays at WARNING). */
public final class MembershipLog extends AbstractActor {
    private final String self;
    private final Departures departures;

    static Props props(String self, Departures departures) {
        return Props.create(MembershipLog.class, () -> new MembershipLog(self, departures));
    }

    private MembershipLog(String self, Departures departures) {
        this.self = self;
        this.departures = departures;
    }

    @Override
    public void preStart() {
        Cluster.get(getContext().getSystem()).subscribe(getSelf(), ClusterEvent.initialStateAsEvents(),
                ClusterEvent.MemberEvent.class, ClusterEvent.UnreachableMember.class, ClusterEvent.ReachableMember.class);
    }

    @Override
    public void postStop() {
        Cluster.get(getContext().getSystem()).unsubscribe(getSelf());
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(ClusterEvent.MemberUp.class, m -> say("member up: " + m.member().address()))
                .match(ClusterEvent.MemberRemoved.class, m -> {
                    departed(m.member());
                    say("member removed: " + m.member().address() + " (was " + m.previousStatus() + ")");
                })
                .match(ClusterEvent.MemberDowned.class, m -> {
                    departed(m.member());
                    say("member downed: " + m.member().address());
                })
                .match(ClusterEvent.MemberLeft.class, m -> say("member leaving: " + m.member().address()))
                .match(ClusterEvent.UnreachableMember.class, m -> say("member unreachable: " + m.member().address()))
                .match(ClusterEvent.ReachableMember.class, m -> say("member reachable again: " + m.member().address()))
                .matchAny(m -> {
                })
                .build();
    }

    private void departed(akka.cluster.Member m) {
        departures.departed(m.address().host().getOrElse(() -> "?") + ":" + m.address().port().getOrElse(() -> 0),
                System.currentTimeMillis());
    }

    private void say(String what) {
        System.out.println("cluster: [" + self + "] " + what);
    }
}
