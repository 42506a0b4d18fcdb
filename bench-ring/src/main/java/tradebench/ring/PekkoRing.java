package tradebench.ring;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import java.util.concurrent.TimeUnit;

/** Apache Pekko classic actors, one per member, on one dispatcher of the given executor and size. */
public final class PekkoRing implements Ring {
    private final ActorSystem system;
    private final ActorRef first;

    public PekkoRing(Tally tally, String executor, int threads) {
        system = ActorSystem.create("ring", AkkaRing.config("pekko", executor, threads));
        ActorRef next = ActorRef.noSender();
        for (int i = tally.members() - 1; i >= 0; i--) {
            next = system.actorOf(Member.props(i, tally, next).withDispatcher("ring-dispatcher"));
        }
        first = next;
    }

    @Override
    public void send(int messages) {
        for (int i = 0; i < messages; i++) {
            first.tell(AkkaRing.MESSAGE, ActorRef.noSender());
        }
    }

    @Override
    public void close() {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the actor system did not stop within 30 s", e);
        }
    }

    static final class Member extends AbstractActor {
        private final int index;
        private final Tally tally;
        private final ActorRef next;

        Member(int index, Tally tally, ActorRef next) {
            this.index = index;
            this.tally = tally;
            this.next = next;
        }

        static Props props(int index, Tally tally, ActorRef next) {
            return Props.create(Member.class, () -> new Member(index, tally, next));
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder().match(String.class, this::onMessage).build();
        }

        private void onMessage(String message) {
            if (tally.arrived(index)) {
                next.tell(message, getSelf());
            }
        }
    }

}
