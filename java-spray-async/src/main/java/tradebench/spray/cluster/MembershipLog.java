package tradebench.spray.cluster;

import akka.actor.AbstractActor;
import akka.actor.Props;
import akka.cluster.Cluster;
import akka.cluster.ClusterEvent;

/** One line on standard output per membership change this member sees (Akka's own log stays at WARNING). */
public final class MembershipLog extends AbstractActor {
    private final String self;

    static Props props(String self) {
        return Props.create(MembershipLog.class, () -> new MembershipLog(self));
    }

    private MembershipLog(String self) {
        this.self = self;
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
                .match(ClusterEvent.MemberRemoved.class, m -> say("member removed: " + m.member().address()
                        + " (was " + m.previousStatus() + ")"))
                .match(ClusterEvent.MemberDowned.class, m -> say("member downed: " + m.member().address()))
                .match(ClusterEvent.MemberLeft.class, m -> say("member leaving: " + m.member().address()))
                .match(ClusterEvent.UnreachableMember.class, m -> say("member unreachable: " + m.member().address()))
                .match(ClusterEvent.ReachableMember.class, m -> say("member reachable again: " + m.member().address()))
                .matchAny(m -> {
                })
                .build();
    }

    private void say(String what) {
        System.out.println("cluster: [" + self + "] " + what);
    }
}
