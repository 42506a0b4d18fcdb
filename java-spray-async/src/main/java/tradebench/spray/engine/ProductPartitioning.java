package tradebench.spray.engine;

import akka.routing.Routee;
import akka.routing.RoutingLogic;
import scala.collection.immutable.IndexedSeq;
import tradebench.engine.Config;

/**
 * contract section 1 as an Akka routing logic: product {@code i} belongs to engine
 * {@code i mod ENGINES}, so every order of a product reaches the one actor
 * that owns that product's book.
 */
public final class ProductPartitioning implements RoutingLogic {
    private final Config config;

    public ProductPartitioning(Config config) {
        this.config = config;
    }

    @Override
    public Routee select(Object message, IndexedSeq<Routee> routees) {
        EngineActor.Arrived a = (EngineActor.Arrived) message;
        return routees.apply(config.engineOf(a.order().productId));
    }
}
