package tradebench.ring;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.Props;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.TimeUnit;

/** Akka classic actors, one per member, on one dispatcher of the given executor and size. */
public final class AkkaRing implements Ring {
    static final String MESSAGE = "Hi";
    /** room for the 2010 shape's 500 messages in flight, and ten times more */
    static final int AFFINITY_QUEUE = 8192;
    private final ActorSystem system;
    private final ActorRef first;

    public AkkaRing(Tally tally, String executor, int threads) {
        system = ActorSystem.create("ring", config("akka", executor, threads));
        ActorRef next = ActorRef.noSender();
        for (int i = tally.members() - 1; i >= 0; i--) {
            next = system.actorOf(Member.props(i, tally, next).withDispatcher("ring-dispatcher"));
        }
        first = next;
    }

    /**
     * The dispatcher as a design would configure it: every executor sized to THREADS, Akka's default throughput.
     * The affinity pool's task queues are bounded (512 by default) and it throws on overflow, dropping the message:
     * a ring keeps up to M members scheduled at once, so its queues get room for every message in flight.
     */
    static Config config(String root, String executor, int threads) {
        String conf = root + ".loglevel = WARNING\n" + root + ".stdout-loglevel = WARNING\n"
                + root + ".log-dead-letters = off\n" + root + ".log-dead-letters-during-shutdown = off\n"
                + "ring-dispatcher {\n  type = Dispatcher\n  executor = \"" + executor + "\"\n"
                + "  fork-join-executor { parallelism-min = " + threads + ", parallelism-max = " + threads
                + ", parallelism-factor = 1.0 }\n"
                + "  thread-pool-executor { fixed-pool-size = " + threads + " }\n"
                + "  affinity-pool-executor { parallelism-min = " + threads + ", parallelism-max = " + threads
                + ", parallelism-factor = 1.0, task-queue-size = " + AFFINITY_QUEUE + " }\n}\n";
        return ConfigFactory.parseString(conf).withFallback(ConfigFactory.load());
    }

    @Override
    public void send(int messages) {
        for (int i = 0; i < messages; i++) {
            first.tell(MESSAGE, ActorRef.noSender());
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
