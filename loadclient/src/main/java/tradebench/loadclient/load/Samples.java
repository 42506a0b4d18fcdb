package tradebench.loadclient.load;

import java.util.Arrays;

/**
 * Every request of one connection's window, one long each: when it was due (ms into the window), its status and
 * its latency (µs). Kept per connection (one writer) and merged after the run, where sorting them by time gives
 * each phase and each second its own figures without a histogram per second per connection.
 *
 * <p>Layout: {@code offsetMs << 41 | status << 31 | latencyUs}: 22 bits of offset (the window is at most
 * {@link #MAX_WINDOW_MS}), 10 of status ({@link StatusCounts#CLIENT_TIMEOUT} included), 31 of latency (35 minutes,
 * beyond any time-out); the sign bit stays clear, so numeric order is time order.
 */
final class Samples {

    static final long MAX_WINDOW_MS = (1L << 22) - 1;
    private static final long MAX_LATENCY_US = (1L << 31) - 1;

    private long[] packed = new long[256];
    /** Latency from the real send, beside {@link #packed} (fixed rate only). */
    private long[] uncorrected;
    private int size;

    Samples(boolean fixedRate) {
        if (fixedRate) uncorrected = new long[packed.length];
    }

    void add(long offsetMs, int status, long latencyUs, long uncorrectedUs) {
        if (size == packed.length) {
            packed = Arrays.copyOf(packed, size * 2);
            if (uncorrected != null) uncorrected = Arrays.copyOf(uncorrected, size * 2);
        }
        packed[size] = pack(offsetMs, status, latencyUs);
        if (uncorrected != null) uncorrected[size] = uncorrectedUs;
        size++;
    }

    int size() {
        return size;
    }

    long packedAt(int i) {
        return packed[i];
    }

    /** Latency from the real send of request {@code i}; the latency itself in the closed loop. */
    long uncorrectedAt(int i) {
        return uncorrected == null ? latencyUs(packed[i]) : uncorrected[i];
    }

    static long pack(long offsetMs, int status, long latencyUs) {
        return Math.min(offsetMs, MAX_WINDOW_MS) << 41 | (long) status << 31 | Math.min(Math.max(0, latencyUs), MAX_LATENCY_US);
    }

    static long offsetMs(long packed) {
        return packed >>> 41;
    }

    static int status(long packed) {
        return (int) (packed >>> 31 & 0x3FF);
    }

    static long latencyUs(long packed) {
        return packed & MAX_LATENCY_US;
    }
}
