package tradebench.akka.engine;

import tradebench.engine.EngineStats;
import tradebench.engine.InboxLimit;
import tradebench.engine.OrderRegistry;
import tradebench.engine.SalesPersister;

/**
 * What one engine owns beyond any one instance of its actor: its number (its
 * products), its admission counter, its counters and its sales writer. A
 * restarted {@link EngineActor} gets the same partition back, so it keeps
 * trading the same products and its stored sales keep counting.
 */
public record Partition(int engine, InboxLimit limit, EngineStats stats, OrderRegistry registry, SalesPersister writer) {
}
