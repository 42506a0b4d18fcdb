package tradebench.akka.engine;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.OneForOneStrategy;
import akka.actor.Props;
import akka.actor.SupervisorStrategy;
import akka.japi.pf.DeciderBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The parent of the engine actors. An engine that throws is restarted in place
 * (same ActorRef, same partition) while the others keep trading: one-for-one,
 * without a retry limit, because a stopped engine would leave its products
 * with nobody to trade them.
 */
public final class EngineSupervisor extends AbstractActor {

    /** Ask for the engines, by number. */
    public static final class GetEngines {
        public static final GetEngines INSTANCE = new GetEngines();

        private GetEngines() {
        }
    }

    public record EngineRefs(List<ActorRef> engines) {
    }

    private final List<Props> engineProps;
    private final List<ActorRef> engines = new ArrayList<>();

    public static Props props(List<Props> engineProps) {
        List<Props> copy = List.copyOf(engineProps);
        return Props.create(EngineSupervisor.class, () -> new EngineSupervisor(copy));
    }

    private EngineSupervisor(List<Props> engineProps) {
        this.engineProps = engineProps;
    }

    @Override
    public void preStart() {
        for (int i = 0; i < engineProps.size(); i++) engines.add(getContext().actorOf(engineProps.get(i), "engine-" + i));
    }

    // Anything a cycle throws restarts that engine. (Fatal JVM errors never get
    // here: Akka hands them to the system's fatal-error handler.) Escalating
    // instead would restart this supervisor and, with it, every engine.
    private static final SupervisorStrategy RESTART_THE_ONE = new OneForOneStrategy(
            DeciderBuilder.matchAny(t -> SupervisorStrategy.restart()).build());

    @Override
    public SupervisorStrategy supervisorStrategy() {
        return RESTART_THE_ONE;
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(GetEngines.class, g -> getSender().tell(new EngineRefs(List.copyOf(engines)), getSelf()))
                .build();
    }
}
