package tradebench.spray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;

/** DB_POOL: this variant's default is 64 connections (at least ENGINES + 4); a value given is kept. */
class PoolDefaultTest {
    @Test
    void poolDefaultsToSixtyFourUnlessGiven() {
        assertEquals(64, SprayService.withPoolDefault(Config.from(Map.of("ENGINES", "6"))).dbPool());
        assertEquals(104, SprayService.withPoolDefault(Config.from(Map.of("ENGINES", "100"))).dbPool());
        assertEquals(5, SprayService.withPoolDefault(Config.from(Map.of("ENGINES", "6", "DB_POOL", "5"))).dbPool());
        Config c = SprayService.withPoolDefault(Config.from(Map.of("ENGINES", "3", "PERSIST", "batch", "PORT", "3103")));
        assertEquals(3, c.engines());
        assertEquals(Config.PersistMode.BATCH, c.persist());
        assertEquals(3103, c.port());
    }
}
