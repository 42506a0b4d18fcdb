package tradebench.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Order ids: {@code max(last + 1, now in µs since the epoch)}, started above the
 * largest id already stored. They increase in the order of acceptance, are
 * never reused after a restart (the clock has moved on, and stored ids are a
 * floor), and stay below 2^53 so JavaScript reads them exactly.
 */
public final class IdSource {
    private final AtomicLong last;
    private final long first;

    public IdSource(long largestStoredId) {
        long start = Math.max(largestStoredId, nowMicros());
        this.last = new AtomicLong(start);
        this.first = start + 1;
    }

    public long next() {
        long now = nowMicros();
        return last.accumulateAndGet(now, (prev, t) -> Math.max(prev + 1, t));
    }

    /** Was this id in the range this process has issued? */
    public boolean issued(long id) {
        return id >= first && id <= last.get();
    }

    private static long nowMicros() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
