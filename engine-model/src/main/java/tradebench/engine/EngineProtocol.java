package tradebench.engine;

import tradebench.model.Order;

/**
 * The messages of an engine actor, the same in both actor variants (java-akka,
 * java-spray-async): they differ only in how a cycle's sales are stored
 * (blocking JDBC on a dispatcher of its own, or non-blocking jasync), and so
 * in the message that says they are: {@link PersistenceComplete} here,
 * java-spray-async's {@code EngineCycle.Stored}, which also names the orders
 * that joined in the cycle.
 */
public final class EngineProtocol {
    private EngineProtocol() {
    }

    /** An accepted order for this engine, already admitted against its {@link InboxLimit}. */
    public record NewOrder(Order order) {
    }

    /** Run one cycle. */
    public enum Run { INSTANCE }

    /** Every sale of {@code cycle} is stored (java-akka). */
    public record PersistenceComplete(Cycle cycle) {
    }

    /** Storing {@code cycle} failed in a way the writer does not retry itself: store it again. */
    public record PersistenceFailed(Cycle cycle, Throwable cause) {
    }

    /** Shutting down: answer {@link Drained} once every admitted order has joined and every sale is stored. */
    public enum Drain { INSTANCE }

    public record Drained(int engine) {
    }

    /** Test-only (FAULTS=on, docs/contract-details.md): the next cycle throws, as a bug in the market would. */
    public enum Crash { INSTANCE }
}
