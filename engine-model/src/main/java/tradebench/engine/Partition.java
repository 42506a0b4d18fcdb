package tradebench.engine;

/**
 * What one engine of an actor variant owns beyond any one instance of its
 * actor: its number (its products), its admission counter (INBOX_LIMIT beside
 * the unbounded mailbox), its counters and its sales writer. A restarted actor
 * gets the same partition back, so it keeps trading the same products and its
 * stored sales keep counting.
 */
public record Partition(int engine, InboxLimit limit, EngineStats stats, OrderRegistry registry, SalesPersister writer) {
}
