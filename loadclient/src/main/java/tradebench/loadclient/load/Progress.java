package tradebench.loadclient.load;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the progress line shows: counters and an interval histogram shared by
 * all workers (the final figures come from the workers' own histograms, not
 * from here).
 */
final class Progress {

    final LongAdder requests = new LongAdder();
    /** Requests that got an answer, whatever its status (I/O errors excluded): what the auto warm-up compares. */
    final LongAdder answered = new LongAdder();
    final LongAdder accepted = new LongAdder();
    final LongAdder overloaded = new LongAdder();
    final LongAdder otherErrors = new LongAdder();
    final LongAdder ioErrors = new LongAdder();
    private final Recorder latencyUs = new Recorder(3);

    private long lastRequests;
    private long lastNs;

    /** The views' answers the experiment watches (the orders' line has no room for them). */
    final LongAdder ok200 = new LongAdder();
    final LongAdder timedOut504 = new LongAdder();
    final LongAdder clientTimeouts = new LongAdder();

    void record(int status, long latencyNs) {
        requests.increment();
        boolean unanswered = status == StatusCounts.IO_ERROR || status == StatusCounts.CLIENT_TIMEOUT;
        if (!unanswered) answered.increment();
        if (status == 202) accepted.increment();
        else if (status == 503) overloaded.increment();
        else if (unanswered) ioErrors.increment();
        else otherErrors.increment();
        if (status == 200) ok200.increment();
        else if (status == 504) timedOut504.increment();
        else if (status == StatusCounts.CLIENT_TIMEOUT) clientTimeouts.increment();
        if (!unanswered) latencyUs.recordValue(Math.max(0, latencyNs / 1000));
    }

    /** The views' part of the progress line (appended to the orders' when the run has view clients). */
    String viewsPart(long nowNs, Timeline tl) {
        Histogram h = latencyUs.getIntervalHistogram();
        long total = requests.sum();
        double secs = lastNs == 0 ? (nowNs - tl.startNs()) / 1e9 : (nowNs - lastNs) / 1e9;
        double perSecond = secs > 0 ? (total - lastRequests) / secs : 0;
        lastRequests = total;
        lastNs = nowNs;
        return String.format(" | views/s=%.0f total=%d 200=%d 503=%d 504=%d other=%d io=%d timeouts=%d p50=%.1fms p99=%.1fms",
                perSecond, total, ok200.sum(), overloaded.sum(), timedOut504.sum(),
                total - ok200.sum() - overloaded.sum() - timedOut504.sum() - ioErrors.sum(), ioErrors.sum() - clientTimeouts.sum(),
                clientTimeouts.sum(), h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0);
    }

    /** One progress line; called by one thread every few seconds. */
    String line(long nowNs, Timeline tl) {
        Histogram h = latencyUs.getIntervalHistogram();
        long total = requests.sum();
        double secs = lastNs == 0 ? (nowNs - tl.startNs()) / 1e9 : (nowNs - lastNs) / 1e9;
        double perSecond = secs > 0 ? (total - lastRequests) / secs : 0;
        lastRequests = total;
        lastNs = nowNs;
        String phase = nowNs < tl.measureStartNs() ? "warmup" : nowNs < tl.measureEndNs() ? "measure" : "drain";
        return String.format(
                "progress t=%.0fs phase=%s orders/s=%.0f total=%d 202=%d 503=%d other=%d io=%d p50=%.1fms p99=%.1fms max=%.1fms",
                (nowNs - tl.startNs()) / 1e9, phase, perSecond, total, accepted.sum(), overloaded.sum(),
                otherErrors.sum(), ioErrors.sum(),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
    }
}
