package tradebench.spray.engine;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import akka.routing.ActorRefRoutee;
import akka.routing.Routee;
import akka.routing.Router;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import tradebench.engine.Config;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.model.Order;
import tradebench.model.OrderBookMarket;
import tradebench.spray.db.AsyncDatabase;

/**
 * The engines of the service: one {@link EngineActor} per partition behind a
 * router with {@link ProductPartitioning}, and an INBOX_LIMIT admission
 * counter beside each actor's (unbounded) mailbox. This is the gateway's
 * {@link OrderGateway.EngineDoor}: admit or refuse, then a fire-and-forget tell.
 */
public final class Engines implements OrderGateway.EngineDoor {
    private final List<ActorRef> actors;
    private final InboxLimit[] inboxes;
    private final Router router;
    private final SaleIds saleIds;

    private Engines(List<ActorRef> actors, InboxLimit[] inboxes, Router router, SaleIds saleIds) {
        this.actors = actors;
        this.inboxes = inboxes;
        this.router = router;
        this.saleIds = saleIds;
    }

    public static Engines start(ActorSystem system, Config config, AsyncDatabase db, OrderRegistry registry, ServiceStats stats) {
        List<ActorRef> actors = new ArrayList<>();
        List<Routee> routees = new ArrayList<>();
        InboxLimit[] inboxes = new InboxLimit[config.engines()];
        SaleIds saleIds = new SaleIds();
        for (int i = 0; i < config.engines(); i++) {
            inboxes[i] = new InboxLimit(config.inboxLimit());
            stats.engine(i).pendingFrom(inboxes[i]::pending);
            ActorRef a = system.actorOf(EngineActor.props(new EngineActor.Parts(i, OrderBookMarket::new, config.timeoutMs(),
                    stats.engine(i), registry, db.writer(config.persist(), stats.engine(i)), inboxes[i], saleIds,
                    config.delayMs())), "engine-" + i);
            actors.add(a);
            routees.add(new ActorRefRoutee(a));
        }
        return new Engines(actors, inboxes, new Router(new ProductPartitioning(config), routees), saleIds);
    }

    /** From a request's thread: never blocks; false (503) when the engine's inbox is full. */
    @Override
    public boolean offer(int engine, Order order) {
        if (!inboxes[engine].tryAdmit()) return false;
        router.route(new EngineActor.Arrived(order), ActorRef.noSender());
        return true;
    }

    /** Completes when every engine has joined every admitted order and stored every sale. */
    public CompletionStage<Void> drain(Duration timeout) {
        CompletableFuture<?>[] all = new CompletableFuture<?>[actors.size()];
        for (int i = 0; i < actors.size(); i++) {
            all[i] = Patterns.ask(actors.get(i), new EngineActor.Drain(), timeout).toCompletableFuture();
        }
        return CompletableFuture.allOf(all);
    }

    /** Test-only (FAULTS=on): engine {@code n}'s next cycle throws; the actor is restarted with a new market. */
    public void crash(int n) {
        actors.get(n).tell(new EngineActor.Crash(), ActorRef.noSender());
    }

    public SaleIds saleIds() {
        return saleIds;
    }

    public int count() {
        return actors.size();
    }
}
