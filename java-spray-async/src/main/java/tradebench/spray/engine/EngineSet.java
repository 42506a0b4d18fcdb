package tradebench.spray.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import tradebench.engine.OrderGateway;

/**
 * The engines of one process, as the service wires them: alone ({@link Engines},
 * one actor per partition here) or as a cluster member
 * ({@code tradebench.spray.cluster.ClusterEngines}, the partitions sharded over
 * the members).
 */
public interface EngineSet extends OrderGateway.EngineDoor {
    /** Completes when every order this process admitted has joined an engine and (alone) every sale is stored. */
    CompletionStage<Void> drain(Duration timeout);

    /** Test-only (FAULTS=on): engine {@code n}'s next cycle throws. */
    void crash(int n);
}
