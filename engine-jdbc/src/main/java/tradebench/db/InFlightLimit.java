package tradebench.db;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How many inserts to keep in flight, learnt from their round trips, and the gate that holds them to it
 * (a semaphore whose permits move). By Little's law a database stores {@code inFlight ÷ roundTrip} a
 * second: behind a far database (the round trip is the link's latency) more in flight stores more;
 * behind a near one the round trip is mostly waiting inside the database and on the CPU it shares, and
 * more in flight only lengthens that queue and costs the database CPU.
 * <p>
 * Both are told apart by the round trip against the least one seen recently (TCP Vegas, and the gradient
 * limit of Netflix's concurrency-limits): at the least round trip nothing waits; what the measured one has
 * on top of it is queueing. Once a window (at least one least round trip and {@value #MIN_WINDOW_MS} ms)
 * the limit becomes
 * <pre>  max(limit ÷ 2, limit × leastRoundTrip ÷ meanRoundTrip + √limit)</pre>
 * — kept when the round trip is the least one plus the room of √limit queued, grown by √limit when there
 * is no queue at all, shrunk (at most halved) when there is more — within [{@code floor}, {@code ceiling}].
 * It grows only when the window had at least half the limit in flight: a window that did not use the
 * limit says nothing about a larger one.
 * <p>
 * The least round trip is the least of the last {@value #LEAST_BUCKETS} buckets of
 * {@value #LEAST_BUCKET_MS} ms, so a link that became slower is followed within about
 * {@value #LEAST_BUCKETS} × {@value #LEAST_BUCKET_MS} ms (until then the limit sits at its floor), and
 * one that became faster at once.
 */
public final class InFlightLimit {
    static final long MIN_WINDOW_MS = 10;
    static final long LEAST_BUCKET_MS = 500;
    static final int LEAST_BUCKETS = 4;
    private static final long MIN_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(MIN_WINDOW_MS);
    private static final long LEAST_BUCKET_NS = TimeUnit.MILLISECONDS.toNanos(LEAST_BUCKET_MS);

    private final int floor;
    private final int ceiling;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition belowLimit = lock.newCondition();
    // all guarded by lock
    private int limit;
    private int inFlight;
    private int peakInFlight;      // in this window
    private long windowStartNs;
    private int windowSamples;
    private long windowSumNs;
    private final long[] leastNs = new long[LEAST_BUCKETS]; // [0]: the current bucket
    private long bucketStartNs;
    private boolean started;

    /** Starts at the ceiling (as the fixed pool it replaces), within [floor, ceiling], both at least 1. */
    public InFlightLimit(int floor, int ceiling) {
        this.ceiling = Math.max(1, ceiling);
        this.floor = Math.max(1, Math.min(floor, this.ceiling));
        this.limit = this.ceiling;
        java.util.Arrays.fill(leastNs, Long.MAX_VALUE);
    }

    /** The inserts that may be in flight now. */
    public int limit() {
        lock.lock();
        try {
            return limit;
        } finally {
            lock.unlock();
        }
    }

    /** Waits (not interruptibly: a sale is stored whatever happens) until fewer than the limit are in flight. */
    public void acquire() {
        lock.lock();
        try {
            while (inFlight >= limit) belowLimit.awaitUninterruptibly();
            inFlight++;
            peakInFlight = Math.max(peakInFlight, inFlight);
        } finally {
            lock.unlock();
        }
    }

    public void release() {
        lock.lock();
        try {
            inFlight--;
            if (inFlight < limit) belowLimit.signal();
        } finally {
            lock.unlock();
        }
    }

    /** One insert's round trip, ending at {@code nowNs} ({@link System#nanoTime()}). */
    public void roundTrip(long rttNs, long nowNs) {
        lock.lock();
        try {
            if (!started) {
                started = true;
                windowStartNs = nowNs;
                bucketStartNs = nowNs;
            }
            rememberLeast(Math.max(1, rttNs), nowNs);
            windowSamples++;
            windowSumNs += rttNs;
            long least = leastRoundTripNs();
            if (nowNs - windowStartNs >= Math.max(least, MIN_WINDOW_NS)) {
                adjust(least, windowSumNs / windowSamples);
                windowStartNs = nowNs;
                windowSamples = 0;
                windowSumNs = 0;
                peakInFlight = inFlight;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The least round trip remembered (Long.MAX_VALUE before the first). */
    long leastRoundTripNs() {
        long least = Long.MAX_VALUE;
        for (long l : leastNs) least = Math.min(least, l);
        return least;
    }

    private void rememberLeast(long rttNs, long nowNs) {
        while (nowNs - bucketStartNs >= LEAST_BUCKET_NS) { // a new bucket; the oldest is forgotten
            System.arraycopy(leastNs, 0, leastNs, 1, LEAST_BUCKETS - 1);
            leastNs[0] = Long.MAX_VALUE;
            bucketStartNs += LEAST_BUCKET_NS;
            if (nowNs - bucketStartNs >= LEAST_BUCKETS * LEAST_BUCKET_NS) { // idle for longer than all of them
                java.util.Arrays.fill(leastNs, Long.MAX_VALUE);
                bucketStartNs = nowNs;
            }
        }
        leastNs[0] = Math.min(leastNs[0], rttNs);
    }

    private void adjust(long leastNs, long meanNs) {
        double gradient = Math.min(1.0, (double) leastNs / Math.max(1, meanNs));
        int next = (int) Math.round(Math.max(limit / 2.0, limit * gradient + Math.sqrt(limit)));
        if (next > limit && peakInFlight * 2 < limit) return; // the window did not use the limit
        next = Math.max(floor, Math.min(ceiling, next));
        if (next > limit) belowLimit.signalAll();
        limit = next;
    }
}
