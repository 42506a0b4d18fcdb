package tradebench.engine;

import java.util.concurrent.atomic.AtomicLongArray;

/** Sales stored in the last 60 seconds, in one-second buckets. */
public final class SalesWindow {
    private static final int SECONDS = 60;
    private final AtomicLongArray counts = new AtomicLongArray(SECONDS);
    private final AtomicLongArray stamps = new AtomicLongArray(SECONDS);

    public void add(long nowMs, long n) {
        long sec = nowMs / 1000;
        int i = (int) (sec % SECONDS);
        if (stamps.get(i) != sec) {
            // a new second reuses the bucket; a race here loses at most a few counts of one bucket
            stamps.set(i, sec);
            counts.set(i, 0);
        }
        counts.addAndGet(i, n);
    }

    public long lastMinute(long nowMs) {
        long sec = nowMs / 1000, sum = 0;
        for (int i = 0; i < SECONDS; i++) {
            if (sec - stamps.get(i) < SECONDS) sum += counts.get(i);
        }
        return sum;
    }
}
