package tradebench.spray.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import tradebench.engine.OrderGateway;

/**
 * The engines of one process, as the service wires them: one actor per
 * partition here ({@link Engines}), or those of a {@code SprayService.Wiring}
 * of a service built on this one.
 */
public interface EngineSet extends OrderGateway.EngineDoor {
    /** Completes when every order this process admitted has joined an engine and (alone) every sale is stored. */
    CompletionStage<Void> drain(Duration timeout);

    /** Test-only (FAULTS=on): engine {@code n}'s next cycle throws. */
    void crash(int n);
}
