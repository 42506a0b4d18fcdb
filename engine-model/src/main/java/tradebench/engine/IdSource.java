package tradebench.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Order ids: {@code max(last + 1, now in µs since the epoch)}, started above the
 * largest id already stored. They increase in the order of acceptance, are
 * never reused after a restart (the clock has moved on, and stored ids are a
 * floor), and stay below 2^53 so JavaScript reads them exactly.
 *
 * <p>Several processes that issue ids for one market (java-spray-async's
 * cluster members) each take every {@code stride}-th number: process k issues
 * only ids with {@code id mod stride = k}, so their ranges are disjoint and the
 * id names the process that issued it. A single process has stride 1.
 */
public final class IdSource {
    private final AtomicLong last;
    private final long first;
    private final int stride;
    private final int residue;

    public IdSource(long largestStoredId) {
        this(largestStoredId, 1, 0);
    }

    /** Ids {@code = residue (mod stride)}, {@code 0 <= residue < stride}. */
    public IdSource(long largestStoredId, int stride, int residue) {
        if (stride < 1 || residue < 0 || residue >= stride) {
            throw new IllegalArgumentException("residue " + residue + " outside 0.." + (stride - 1));
        }
        this.stride = stride;
        this.residue = residue;
        long start = Math.max(largestStoredId, nowMicros());
        this.last = new AtomicLong(start);
        this.first = align(start + 1);
    }

    public long next() {
        long now = nowMicros();
        return last.accumulateAndGet(now, (prev, t) -> align(Math.max(prev + 1, t)));
    }

    /** Was this id in the range this process has issued? */
    public boolean issued(long id) {
        return id >= first && id <= last.get() && Math.floorMod(id, stride) == residue;
    }

    /** The process (0..stride-1) that issues {@code id}. */
    public static int issuerOf(long id, int stride) {
        return (int) Math.floorMod(id, (long) stride);
    }

    /** The smallest id {@code >= v} that this process issues. */
    private long align(long v) {
        if (stride == 1) return v;
        long r = Math.floorMod(v, stride);
        return r == residue ? v : v + Math.floorMod(residue - r, stride);
    }

    private static long nowMicros() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
