package tradebench.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What one engine of an actor variant owns beyond any one instance of its
 * actor: its number (its products), its admission counter (INBOX_LIMIT beside
 * the unbounded mailbox), its counters and its sales writer. A restarted actor
 * gets the same partition back, so it keeps trading the same products and its
 * stored sales keep counting.
 */
public record Partition(int engine, InboxLimit limit, EngineStats stats, OrderRegistry registry, SalesPersister writer) {
    /**
     * ENGINES partitions, each with an INBOX_LIMIT counter (its engine's
     * {@code pendingOrders} in /stats) and the writer {@code writers} makes
     * for its counters.
     */
    public static List<Partition> forEngines(Config config, ServiceStats stats, OrderRegistry registry,
                                             Function<EngineStats, SalesPersister> writers) {
        List<Partition> out = new ArrayList<>(config.engines());
        for (int i = 0; i < config.engines(); i++) {
            InboxLimit limit = new InboxLimit(config.inboxLimit());
            stats.engine(i).pendingFrom(limit::pending);
            out.add(new Partition(i, limit, stats.engine(i), registry, writers.apply(stats.engine(i))));
        }
        return List.copyOf(out);
    }
}
