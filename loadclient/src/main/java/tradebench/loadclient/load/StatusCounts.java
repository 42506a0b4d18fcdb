package tradebench.loadclient.load;

import java.util.Map;
import java.util.TreeMap;

/** Answers counted by HTTP status; slot 0 counts I/O errors (no answer at all). Single writer. */
final class StatusCounts {

    static final int IO_ERROR = 0;

    private final long[] counts = new long[600];

    void add(int status) {
        counts[status >= 0 && status < 600 ? status : IO_ERROR]++;
    }

    void addAll(StatusCounts other) {
        for (int i = 0; i < counts.length; i++) counts[i] += other.counts[i];
    }

    long get(int status) {
        return counts[status];
    }

    long ioErrors() {
        return counts[IO_ERROR];
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
        for (int i = 1; i < counts.length; i++) if (counts[i] > 0) m.put(Integer.toString(i), counts[i]);
        return m;
    }
}
