package tradebench.spray.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import tradebench.engine.OrderGateway;

/**
 * The engines of one process, as a {@code SprayService.Wiring} starts them: one
 * actor per partition (java-spray-async's {@code Engines}), or a cluster member's
 * share of the partitions (java-spray-cluster's {@code ClusterEngines}).
 */
public interface EngineSet extends OrderGateway.EngineDoor {
    /** Completes when every order this process admitted has joined an engine and (alone) every sale is stored. */
    CompletionStage<Void> drain(Duration timeout);

    /** Test-only (FAULTS=on): engine {@code n}'s next cycle throws. */
    void crash(int n);
}
