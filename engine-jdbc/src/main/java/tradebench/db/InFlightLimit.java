package tradebench.db;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;

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
 * <pre>  max(limit ÷ 2, limit × min(1, {@value #TOLERANCE} × leastRoundTrip ÷ medianRoundTrip) + √limit)</pre>
 * (rounded down)
 * — grown by √limit while the window's median round trip is within {@value #TOLERANCE} times the least
 * (the tolerance of Netflix's gradient limit: a round trip's own jitter is not a queue), shrunk (at most halved) when it is further — within [{@code writers},
 * {@code ceiling}]: never fewer than one insert in flight per writer sharing it. It grows only when the
 * window had at least half the limit in flight: a window that did not use the limit says nothing about a
 * larger one. The median, not the mean: a few round trips that waited for a carrier thread or a
 * collection (a spike of tens of milliseconds on a busy machine) are not a queue in the database, and
 * would pull a mean far from the rest. A writer waits at the gate for its first insert in flight
 * ({@link #acquire()}) and takes more only where the limit has room and no writer waits ({@link #tryAcquire()}):
 * one writer's cycle can use all of the limit while the others are between cycles, and none is starved.
 * <p>
 * The least round trip is the least of the last {@value #LEAST_BUCKETS} buckets of
 * {@value #LEAST_BUCKET_MS} ms, so a link that became slower is followed within about
 * {@value #LEAST_BUCKETS} × {@value #LEAST_BUCKET_MS} ms (until then the limit sits at its floor), and
 * one that became faster at once.
 * <p>
 * <b>The round trips propose, the rate decides where they say "all queue".</b> A round trip is timed by the
 * thread that sent the insert, so it also holds that thread's wait for a processor once the answer came.
 * On a variant short of processor time (beside the load client on one core, the database on another) that
 * wait is most of every round trip, the least one (an answer read without waiting) is a fraction of it, and
 * the round trips alone would hold the limit at its floor while more in flight would store more (Little's
 * law: the wait is the same for 4 in flight and for 64). So, after every {@value #PROBE_AFTER_MS} ms that
 * the round trips held the limit at its floor while writers wanted more (in three windows of four), it tries twice the limit for
 * {@value #PROBE_FOR_MS} ms: when that stores at least {@value #PROBE_GAIN} times as many sales a second,
 * the floor becomes the doubled limit (the round trips can no longer take it lower); when not, the limit goes
 * back. A raised floor is tried at its half after a doubling that stored no more (and at the ceiling), and
 * lowered where the half stores as much (within the same factor): the floor follows the rate down as well as
 * up.
 * A database that is the queue stores no more with twice as many in flight, and keeps its floor.
 * <p>
 * Every {@value #TELL_EVERY_S} s (when a window closes) it may tell where it stands, on a line of its own:
 * {@code inFlight limit=N floor=F leastRoundTripMs=X medianRoundTripMs=Y peakInFlight=Z}, of the last window.
 */
public final class InFlightLimit {
    static final long MIN_WINDOW_MS = 10;
    static final long LEAST_BUCKET_MS = 500;
    static final int LEAST_BUCKETS = 4;
    static final long TELL_EVERY_S = 5;
    static final double TOLERANCE = 1.5;
    static final long PROBE_AFTER_MS = 1_000;
    static final long PROBE_FOR_MS = 250;
    static final double PROBE_GAIN = 1.15;
    private static final int MAX_WINDOW_SAMPLES = 1 << 14;
    private static final long MIN_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(MIN_WINDOW_MS);
    private static final long LEAST_BUCKET_NS = TimeUnit.MILLISECONDS.toNanos(LEAST_BUCKET_MS);
    private static final long PROBE_AFTER_NS = TimeUnit.MILLISECONDS.toNanos(PROBE_AFTER_MS);
    private static final long PROBE_FOR_NS = TimeUnit.MILLISECONDS.toNanos(PROBE_FOR_MS);

    private final int writers;
    private final int ceiling;
    private final PrintStream tell; // null: silent
    private final Limit library;    // null: its own learning (the round trips propose, the rate decides)
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition belowLimit = lock.newCondition();
    private volatile int limit;  // written under the lock, read without it
    // the rest guarded by lock
    private int inFlight;
    private int peakInFlight;      // in this window
    private long windowStartNs;
    private int windowSamples;
    private long[] windowNs = new long[256];
    private final long[] leastNs = new long[LEAST_BUCKETS]; // [0]: the current bucket
    private long bucketStartNs;
    private boolean started;
    private long lastMedianNs;
    private int lastPeak;
    private long toldNs;
    // the rate's tries (probes), guarded by lock
    private int floor;             // what the round trips cannot take the limit below: writers, or raised by a try
    private long answered;         // round trips told, ever
    private long periodStartNs;    // the period the next try compares with (held at the floor) or the try
    private long periodAnswered;
    private int periodWindows;     // windows of the period, and those that ended at the floor with writers
    private int periodPinned;      // wanting more
    private boolean wanted;        // a writer waited at the gate or was refused a place, in this window
    private int tryLimit;          // 0: no try under way
    private int triedFrom;
    private double baseRate;
    private boolean tryDown;       // the next try halves a raised floor (after a doubling that stored no more)

    /**
     * For {@code writers} writers sharing it: starts at the ceiling (as the fixed pool it replaces), within
     * [writers, ceiling], both at least 1.
     */
    public InFlightLimit(int writers, int ceiling) {
        this(writers, ceiling, null);
    }

    /** As {@link #InFlightLimit(int, int)}, telling {@code tell} where it stands every few seconds. */
    public InFlightLimit(int writers, int ceiling, PrintStream tell) {
        this(writers, ceiling, tell, false);
    }

    /**
     * As {@link #InFlightLimit(int, int, PrintStream)}, learning the limit with Netflix's gradient limit
     * ({@code Gradient2Limit} of concurrency-limits, fed every round trip) instead of its own: the same gate, the
     * same bounds. Kept to measure the two against each other (java-virtual's {@code LIMIT=gradient2}).
     */
    public static InFlightLimit gradient2(int writers, int ceiling, PrintStream tell) {
        return new InFlightLimit(writers, ceiling, tell, true);
    }

    private InFlightLimit(int writers, int ceiling, PrintStream tell, boolean gradient2) {
        this.tell = tell;
        this.ceiling = Math.max(1, ceiling);
        this.writers = Math.max(1, Math.min(writers, this.ceiling));
        this.limit = this.ceiling;
        this.floor = this.writers;
        this.library = gradient2
                ? Gradient2Limit.newBuilder().initialLimit(this.ceiling).minLimit(this.writers)
                        .maxConcurrency(this.ceiling).build()
                : null;
        Arrays.fill(leastNs, Long.MAX_VALUE);
    }

    /** The inserts that may be in flight now. */
    public int limit() {
        return limit;
    }

    /** Whether more are in flight than the limit now allows (it fell): a holder should give its place back. */
    public boolean overLimit() {
        lock.lock();
        try {
            return inFlight > limit;
        } finally {
            lock.unlock();
        }
    }

    /** Waits (not interruptibly: a sale is stored whatever happens) until fewer than the limit are in flight. */
    public void acquire() {
        lock.lock();
        try {
            if (inFlight >= limit) wanted = true;
            while (inFlight >= limit) belowLimit.awaitUninterruptibly();
            inFlight++;
            peakInFlight = Math.max(peakInFlight, inFlight);
        } finally {
            lock.unlock();
        }
    }

    /**
     * One more in flight if the limit has room now and nobody waits in {@link #acquire()} (who came first);
     * false, at once, otherwise.
     */
    public boolean tryAcquire() {
        lock.lock();
        try {
            if (inFlight >= limit || lock.hasWaiters(belowLimit)) {
                wanted = true;
                return false;
            }
            inFlight++;
            peakInFlight = Math.max(peakInFlight, inFlight);
            return true;
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
        String told = null;
        lock.lock();
        try {
            if (!started) {
                started = true;
                windowStartNs = nowNs;
                bucketStartNs = nowNs;
                toldNs = nowNs;
                periodStartNs = nowNs;
            }
            answered++;
            if (library != null) {
                library.onSample(nowNs - rttNs, rttNs, inFlight, false);
                setLimit(Math.max(writers, Math.min(ceiling, library.getLimit())));
            }
            rememberLeast(Math.max(1, rttNs), nowNs);
            if (windowSamples == windowNs.length && windowSamples < MAX_WINDOW_SAMPLES) {
                windowNs = Arrays.copyOf(windowNs, 2 * windowSamples);
            }
            if (windowSamples < windowNs.length) windowNs[windowSamples++] = rttNs; // beyond: the window has plenty
            long least = leastRoundTripNs();
            if (nowNs - windowStartNs >= Math.max(least, MIN_WINDOW_NS)) {
                Arrays.sort(windowNs, 0, windowSamples);
                lastMedianNs = windowNs[windowSamples / 2];
                lastPeak = peakInFlight;
                if (library == null) {
                    if (tryLimit == 0) adjust(least, lastMedianNs); // a try holds the limit it tries
                    periodWindows++;
                    if (limit == floor && wanted) periodPinned++;
                    probe(nowNs);
                }
                windowStartNs = nowNs;
                windowSamples = 0;
                peakInFlight = inFlight;
                wanted = false;
                if (tell != null && nowNs - toldNs >= TimeUnit.SECONDS.toNanos(TELL_EVERY_S)) {
                    toldNs = nowNs;
                    told = String.format(Locale.ROOT,
                            "inFlight limit=%d floor=%d leastRoundTripMs=%.3f medianRoundTripMs=%.3f peakInFlight=%d",
                            limit, floor, least / 1e6, lastMedianNs / 1e6, lastPeak);
                }
            }
        } finally {
            lock.unlock();
        }
        if (told != null) tell.println(told); // not under the lock: the engines' inserts do not wait for a print
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
                Arrays.fill(leastNs, Long.MAX_VALUE);
                bucketStartNs = nowNs;
            }
        }
        leastNs[0] = Math.min(leastNs[0], rttNs);
    }

    /**
     * At a window's end: starts a try when the round trips held the limit at its floor for a whole period
     * while writers wanted more, and ends a try that has lasted its time, keeping what stored more.
     */
    private void probe(long nowNs) {
        long elapsed = nowNs - periodStartNs;
        if (tryLimit == 0) {
            if (elapsed < PROBE_AFTER_NS) return;
            boolean down = floor > writers && (tryDown || limit >= ceiling);
            boolean up = !down && limit < ceiling;
            // held at the floor for most of the period (a window of jitter or between cycles is no evidence)
            if (4 * periodPinned >= 3 * periodWindows && (down || up)) {
                baseRate = (answered - periodAnswered) / (double) elapsed;
                triedFrom = limit;
                tryLimit = down ? Math.max(writers, floor / 2) : Math.min(ceiling, 2 * limit);
                setLimit(tryLimit);
            }
        } else {
            if (elapsed < PROBE_FOR_NS) return;
            double rate = (answered - periodAnswered) / (double) elapsed;
            if (tryLimit > triedFrom && rate >= PROBE_GAIN * baseRate) {
                floor = tryLimit;                   // twice as many in flight store more: keep them
            } else if (tryLimit < triedFrom && rate * PROBE_GAIN >= baseRate) {
                floor = tryLimit;                   // half as many store as much: the floor was too high
            }
            setLimit(floor == tryLimit ? floor : triedFrom);
            tryDown = tryLimit > triedFrom && floor != tryLimit; // after a doubling that stored no more
            tryLimit = 0;
        }
        periodStartNs = nowNs;
        periodAnswered = answered;
        periodWindows = 0;
        periodPinned = 0;
    }

    private void setLimit(int next) {
        if (next > limit) belowLimit.signalAll();
        limit = next;
    }

    private void adjust(long least, long median) {
        double gradient = Math.min(1.0, TOLERANCE * least / Math.max(1, median));
        int next = gradient >= 1.0
                ? limit + (int) Math.max(1, Math.sqrt(limit))                       // no queue: grow
                : (int) Math.max(limit / 2.0, limit * gradient + Math.sqrt(limit)); // a queue: what it needs, and room
        if (next > limit && peakInFlight * 2 < limit) return; // the window did not use the limit
        setLimit(Math.max(floor, Math.min(ceiling, next)));
    }
}
