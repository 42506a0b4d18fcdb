package tradebench.spray.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this member last saw each other member downed or removed, by its
 * {@code host:port} (a CLUSTER_SEEDS entry). The ids a member issued are
 * microseconds since the epoch ({@code IdSource}), so an id of that member no
 * later than its departure was issued by an incarnation that is gone, and
 * only the partitions and SALES can still say what became of it
 * ({@code GET /orders/{id}}, contract section 9). Written by
 * {@link MembershipLog}, read by request threads.
 */
public final class Departures {
    /**
     * Ids run ahead of the clock only while a member issues more than one per
     * 16 µs; an id this far past the departure was never issued by the
     * departed incarnation.
     */
    static final long AHEAD_MS = 60_000;

    private final Map<String, Long> lastMs = new ConcurrentHashMap<>();

    public void departed(String hostPort, long ms) {
        lastMs.merge(hostPort, ms, Math::max);
    }

    /** Was {@code id} issued by an incarnation of {@code hostPort} that has since been downed or removed? */
    public boolean issuedByGone(String hostPort, long id) {
        Long ms = lastMs.get(hostPort);
        return ms != null && id / 1000 <= ms + AHEAD_MS;
    }
}
