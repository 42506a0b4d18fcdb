package tradebench.engine;

import tradebench.model.Order;

/**
 * The front door every variant's HTTP layer calls for an order: it gives the
 * order its id, remembers it, and hands it to the engine that owns its product
 * without waiting for any trade. It never blocks.
 */
public final class OrderGateway {

    /** How a variant hands an order to an engine: false when that engine's inbox is full. */
    @FunctionalInterface
    public interface EngineDoor {
        boolean offer(int engine, Order order);
    }

    /** The answer to a submitted order. */
    public sealed interface Outcome permits Accepted, Refused {
    }

    /** Answered 202 (the body: {@code tradebench.wire.Answers}). */
    public record Accepted(long id, String side) implements Outcome {
    }

    /** Answered 503 with Retry-After: "overloaded" or "shutting down". */
    public record Refused(String reason) implements Outcome {
    }

    public static final Refused OVERLOADED = new Refused("overloaded");
    public static final Refused SHUTTING_DOWN = new Refused("shutting down");

    private final Config config;
    private final IdSource ids;
    private final OrderRegistry registry;
    private final ServiceStats stats;
    private final EngineDoor door;
    private volatile boolean closed;

    public OrderGateway(Config config, IdSource ids, OrderRegistry registry, ServiceStats stats, EngineDoor door) {
        this.config = config;
        this.ids = ids;
        this.registry = registry;
        this.stats = stats;
        this.door = door;
    }

    public Outcome submit(OrderRequest request) {
        if (closed) {
            stats.overloaded();
            return SHUTTING_DOWN;
        }
        int engine = config.engineOf(request.productId());
        Order order = request.toOrder(ids.next(), System.currentTimeMillis());
        registry.register(order);
        if (!door.offer(engine, order)) {
            registry.unregister(order);
            stats.overloaded();
            return OVERLOADED;
        }
        stats.engine(engine).accepted();
        return new Accepted(order.id, order.side.wire());
    }

    /** Bad input answered 4xx: counted, nothing else. */
    public void rejected() {
        stats.rejected();
    }

    /** Stop accepting orders (shutdown): every later submit is refused. */
    public void close() {
        closed = true;
    }

    public Config config() {
        return config;
    }

    public IdSource ids() {
        return ids;
    }

    public OrderRegistry registry() {
        return registry;
    }

    public ServiceStats stats() {
        return stats;
    }
}
