package tradebench.spray.cluster;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import tradebench.engine.Config;
import tradebench.engine.IdSource;

/**
 * Cluster mode's settings (contract section 5): {@code CLUSTER_SEEDS}, a
 * comma-separated {@code host:port} list of the members' Akka remoting
 * addresses; {@code CLUSTER_HOST} and {@code CLUSTER_PORT}, this member's own
 * (default 127.0.0.1 and 25520). A member needs {@code CLUSTER_SEEDS}; without
 * it java-spray-async's own jar runs the service alone.
 *
 * <p>Every member is one of the seeds, and its place in the list (0, 1, ...)
 * is its member number: it issues only order ids {@code = number (mod 16)}
 * ({@link IdSource}), so ids are unique cluster-wide and an id names the member
 * that accepted it (which answers {@code /orders/{id}}). At most
 * {@value #MAX_MEMBERS} members.
 */
public record ClusterSettings(String host, int port, List<String> seeds, int member) {
    public static final int MAX_MEMBERS = 16;
    /** The actor system's name, the same on every member. */
    public static final String SYSTEM = tradebench.spray.SprayService.SYSTEM;

    /** The settings of the environment, or null when CLUSTER_SEEDS is unset. */
    public static ClusterSettings from(Config config) {
        String seedsText = config.extra("CLUSTER_SEEDS", "");
        if (seedsText.isEmpty()) return null;
        String host = config.extra("CLUSTER_HOST", "127.0.0.1");
        int port = config.extraInt("CLUSTER_PORT", 25520, 1, 65535);
        List<String> seeds = new ArrayList<>();
        for (String s : seedsText.split(",")) {
            String t = s.trim();
            if (t.isEmpty()) continue;
            int colon = t.lastIndexOf(':');
            if (colon <= 0 || !t.substring(colon + 1).matches("[0-9]{1,5}")
                    || Integer.parseInt(t.substring(colon + 1)) < 1 || Integer.parseInt(t.substring(colon + 1)) > 65535) {
                throw new IllegalArgumentException("CLUSTER_SEEDS must be a comma-separated list of host:port, not '" + seedsText + "'");
            }
            if (seeds.contains(t)) throw new IllegalArgumentException("CLUSTER_SEEDS names " + t + " twice");
            seeds.add(t);
        }
        if (seeds.size() > MAX_MEMBERS) {
            throw new IllegalArgumentException("CLUSTER_SEEDS names " + seeds.size() + " members, at most " + MAX_MEMBERS);
        }
        String self = host + ":" + port;
        int member = seeds.indexOf(self);
        if (member < 0) {
            throw new IllegalArgumentException("CLUSTER_HOST:CLUSTER_PORT (" + self + ") must be one of CLUSTER_SEEDS ("
                    + String.join(",", seeds) + "): a member's place in that list numbers its order ids");
        }
        return new ClusterSettings(host, port, List.copyOf(seeds), member);
    }

    public String self() {
        return host + ":" + port;
    }

    /** Order ids of this member: above the largest stored one, {@code = member (mod 16)}. */
    public IdSource ids(long largestStoredId) {
        return new IdSource(largestStoredId, MAX_MEMBERS, member);
    }

    /** The member (its place in CLUSTER_SEEDS) that issued order {@code id}. */
    public static int issuerOf(long id) {
        return IdSource.issuerOf(id, MAX_MEMBERS);
    }

    /** The Akka address of member {@code i}. */
    public String address(int i) {
        return "akka://" + SYSTEM + "@" + seeds.get(i);
    }

    /**
     * Akka's settings for this member: remoting on CLUSTER_HOST:CLUSTER_PORT, the
     * seeds, and the fixed part in {@code cluster.conf} (sharding, the Split
     * Brain Resolver, Jackson). Not {@code min-nr-of-members}: Akka's shard
     * coordinator, started anew on another member when its own crashes, waits
     * until that many regions have registered, which after a crash never
     * happens; {@link ClusterEngines} waits for the seeds itself.
     */
    public com.typesafe.config.Config akka() {
        StringBuilder seedList = new StringBuilder();
        for (int i = 0; i < seeds.size(); i++) {
            if (i > 0) seedList.append(", ");
            seedList.append('"').append(address(i)).append('"');
        }
        return ConfigFactory.parseString(
                "akka.remote.artery.canonical.hostname = \"" + host + "\"\n"
                        + "akka.remote.artery.canonical.port = " + port + "\n"
                        + "akka.cluster.seed-nodes = [" + seedList + "]\n")
                .withFallback(ConfigFactory.parseResources("cluster.conf"));
    }
}
