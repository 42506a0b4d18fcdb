package tradebench.spray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.IdSource;

class ClusterSettingsTest {
    private static ClusterSettings of(Map<String, String> env) {
        return ClusterSettings.from(Config.from(env));
    }

    @Test
    void withoutSeedsTheServiceRunsAlone() {
        assertNull(of(Map.of()));
        assertNull(of(Map.of("CLUSTER_HOST", "10.0.0.1", "CLUSTER_PORT", "25521")));
    }

    @Test
    void aMemberIsNumberedByItsPlaceAmongTheSeedsAndIssuesOnlyItsIds() {
        ClusterSettings s = of(Map.of("CLUSTER_HOST", "127.0.0.1", "CLUSTER_PORT", "25522",
                "CLUSTER_SEEDS", "127.0.0.1:25520, 127.0.0.1:25521,127.0.0.1:25522"));
        assertEquals(2, s.member());
        assertEquals(List.of("127.0.0.1:25520", "127.0.0.1:25521", "127.0.0.1:25522"), s.seeds());
        assertEquals("akka://tradebench@127.0.0.1:25521", s.address(1));
        IdSource ids = s.ids(0);
        for (int i = 0; i < 1000; i++) assertEquals(2, ClusterSettings.issuerOf(ids.next()));
        com.typesafe.config.Config akka = s.akka();
        assertEquals("cluster", akka.getString("akka.actor.provider"));
        assertEquals(25522, akka.getInt("akka.remote.artery.canonical.port"));
        assertEquals("akka.cluster.sbr.SplitBrainResolverProvider", akka.getString("akka.cluster.downing-provider-class"));
        assertEquals("keep-majority", akka.getString("akka.cluster.split-brain-resolver.active-strategy"));
        assertEquals("jackson-cbor", akka.getString("akka.actor.serialization-bindings.\"tradebench.spray.cluster.ClusterMessage\""));
        assertTrue(!akka.getBoolean("akka.actor.allow-java-serialization"));
        // a member cut off from the majority downs itself stable-after after it finds the others
        // unreachable; the majority must not start its partitions before then
        com.typesafe.config.Config resolved = akka.resolve();
        assertTrue(resolved.getDuration("akka.cluster.down-removal-margin")
                .compareTo(resolved.getDuration("akka.cluster.split-brain-resolver.stable-after")) >= 0,
                "down-removal-margin " + resolved.getString("akka.cluster.down-removal-margin") + " < stable-after");
    }

    @Test
    void badClusterSettingsStopTheStartWithTheirName() {
        IllegalArgumentException notListed = assertThrows(IllegalArgumentException.class, () -> of(Map.of(
                "CLUSTER_HOST", "127.0.0.1", "CLUSTER_PORT", "25529", "CLUSTER_SEEDS", "127.0.0.1:25520")));
        assertTrue(notListed.getMessage().contains("CLUSTER_SEEDS"), notListed.getMessage());
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("CLUSTER_SEEDS", "localhost")));
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("CLUSTER_SEEDS", "a:1,a:1")));
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("CLUSTER_PORT", "70000", "CLUSTER_SEEDS", "a:1")));
        StringBuilder many = new StringBuilder("127.0.0.1:25520");
        for (int i = 1; i <= 16; i++) many.append(",h").append(i).append(":1");
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("CLUSTER_SEEDS", many.toString())));
    }
}
