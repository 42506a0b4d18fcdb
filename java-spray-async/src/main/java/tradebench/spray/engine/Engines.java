package tradebench.spray.engine;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import tradebench.engine.Config;
import tradebench.engine.EngineProtocol;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.Partition;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.spray.db.AsyncDatabase;

/**
 * The engines of the service: one {@link EngineActor} per partition, and an
 * INBOX_LIMIT admission counter beside each actor's (unbounded) mailbox. This
 * is the gateway's {@link OrderGateway.EngineDoor}: the gateway has chosen the
 * engine of the order's product; admit or refuse, then a fire-and-forget tell.
 */
public final class Engines implements EngineSet {
    private final List<ActorRef> actors;
    private final List<Partition> partitions;

    private Engines(List<ActorRef> actors, List<Partition> partitions) {
        this.actors = actors;
        this.partitions = partitions;
    }

    public static Engines start(ActorSystem system, Config config, AsyncDatabase db, OrderRegistry registry, ServiceStats stats) {
        List<Partition> partitions = Partition.forEngines(config, stats, registry, s -> db.writer(config.persist(), s));
        List<ActorRef> actors = new ArrayList<>();
        for (Partition p : partitions) {
            actors.add(system.actorOf(EngineActor.props(p, config.delayMs(), config.timeoutMs(), OrderBookMarket::new),
                    "engine-" + p.engine()));
        }
        return new Engines(List.copyOf(actors), partitions);
    }

    /** From a request's thread: never blocks; false (503) when the engine's inbox is full. */
    @Override
    public boolean offer(int engine, Order order) {
        if (!partitions.get(engine).limit().tryAdmit()) return false;
        actors.get(engine).tell(new EngineProtocol.NewOrder(order), ActorRef.noSender());
        return true;
    }

    /** Completes when every engine has joined every admitted order and stored every sale. */
    @Override
    public CompletionStage<Void> drain(Duration timeout) {
        CompletableFuture<?>[] all = actors.stream()
                .map(a -> Patterns.ask(a, EngineProtocol.Drain.INSTANCE, timeout).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all);
    }

    /** Test-only (FAULTS=on): engine {@code n}'s next cycle throws; the actor is restarted with a new market. */
    @Override
    public void crash(int n) {
        actors.get(n).tell(EngineProtocol.Crash.INSTANCE, ActorRef.noSender());
    }
}
