package tradebench.loadclient.load;

import java.util.Map;
import java.util.TreeMap;

/**
 * Answers counted by HTTP status; slot 0 counts I/O errors (no answer at all), slot {@link #CLIENT_TIMEOUT} the
 * requests the client gave up waiting for. Single writer.
 */
final class StatusCounts {

    static final int IO_ERROR = 0;
    /** No answer within the time-out: the client closed the connection (no HTTP status is 600 or more). */
    static final int CLIENT_TIMEOUT = 600;

    private final long[] counts = new long[CLIENT_TIMEOUT + 1];

    void add(int status) {
        counts[status >= 0 && status <= CLIENT_TIMEOUT ? status : IO_ERROR]++;
    }

    void addAll(StatusCounts other) {
        for (int i = 0; i < counts.length; i++) counts[i] += other.counts[i];
    }

    long get(int status) {
        return counts[status];
    }

    /** Requests without an answer: failed at the socket level or timed out (the orders' figures have one class). */
    long ioErrors() {
        return counts[IO_ERROR] + counts[CLIENT_TIMEOUT];
    }

    /** Failed at the socket level only (refused, reset, closed). */
    long socketErrors() {
        return counts[IO_ERROR];
    }

    long clientTimeouts() {
        return counts[CLIENT_TIMEOUT];
    }

    /** Requests that got an answer or failed: everything counted. */
    long total() {
        long t = 0;
        for (long c : counts) t += c;
        return t;
    }

    long range(int fromInclusive, int toExclusive, int except) {
        long t = 0;
        for (int i = fromInclusive; i < toExclusive; i++) if (i != except) t += counts[i];
        return t;
    }

    /** Every status seen, e.g. {"202": 1000, "503": 3}. */
    Map<String, Long> byStatus() {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 1; i < CLIENT_TIMEOUT; i++) if (counts[i] > 0) m.put(Integer.toString(i), counts[i]);
        return m;
    }
}
