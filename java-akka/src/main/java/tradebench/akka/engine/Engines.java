package tradebench.akka.engine;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.Props;
import akka.pattern.Patterns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import tradebench.db.Database;
import tradebench.engine.Config;
import tradebench.engine.EngineProtocol;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.Partition;
import tradebench.engine.ServiceStats;
import tradebench.model.Market;
import tradebench.model.Order;

/**
 * The engine actors of the service, seen from outside: the gateway's door
 * (admit against INBOX_LIMIT, then {@code tell}: a request thread never waits)
 * and the drain at shutdown.
 */
public final class Engines implements OrderGateway.EngineDoor {
    private final List<ActorRef> engines;
    private final List<Partition> partitions;

    private Engines(List<ActorRef> engines, List<Partition> partitions) {
        this.engines = engines;
        this.partitions = partitions;
    }

    /** ENGINES engine actors under one supervisor, each with its partition and a JDBC writer for its sales. */
    public static Engines start(ActorSystem system, Config config, Database db, OrderRegistry registry, ServiceStats stats,
                                Supplier<Market> markets, String persistenceDispatcher) {
        List<Partition> partitions = Partition.forEngines(config, stats, registry, s -> db.writer(config.persist(), s));
        List<Props> props = new ArrayList<>();
        for (Partition p : partitions) {
            props.add(EngineActor.props(p, config.delayMs(), config.timeoutMs(), markets, persistenceDispatcher));
        }
        ActorRef supervisor = system.actorOf(EngineSupervisor.props(props), "engines");
        EngineSupervisor.EngineRefs refs = (EngineSupervisor.EngineRefs) Patterns
                .ask(supervisor, EngineSupervisor.GetEngines.INSTANCE, Duration.ofSeconds(10))
                .toCompletableFuture().join();
        return new Engines(refs.engines(), partitions);
    }

    /** Called by request threads: false (503 overloaded) when the engine already has INBOX_LIMIT orders waiting. */
    @Override
    public boolean offer(int engine, Order order) {
        if (!partitions.get(engine).limit().tryAdmit()) return false;
        engines.get(engine).tell(new EngineProtocol.NewOrder(order), ActorRef.noSender());
        return true;
    }

    /**
     * Completes when every engine has joined every order it admitted and
     * stored every sale (call after the gateway is closed); fails after {@code timeout}.
     */
    public CompletableFuture<Void> drain(Duration timeout) {
        CompletableFuture<?>[] all = engines.stream()
                .map(e -> Patterns.ask(e, EngineProtocol.Drain.INSTANCE, timeout).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all);
    }

    /** Test-only (FAULTS=on): engine {@code i}'s next cycle throws; its supervisor restarts it. */
    public void crash(int i) {
        engines.get(i).tell(EngineProtocol.Crash.INSTANCE, ActorRef.noSender());
    }

    public ActorRef engine(int i) {
        return engines.get(i);
    }

    public Partition partition(int i) {
        return partitions.get(i);
    }
}
