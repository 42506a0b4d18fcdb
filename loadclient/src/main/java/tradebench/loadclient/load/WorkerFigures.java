package tradebench.loadclient.load;

import org.HdrHistogram.Histogram;

/**
 * What one worker (one connection) measured: its own histograms and counts,
 * written by one thread only and merged after the run, so recording never contends.
 */
class WorkerFigures {

    /** Latencies in microseconds; 10 s range to start with, growing if a stall is longer. */
    static Histogram newHistogram() {
        Histogram h = new Histogram(1, 10_000_000, 3);
        h.setAutoResize(true);
        return h;
    }

    /** From the due time (fixed rate) or the send time (closed loop). */
    final Histogram latency = newHistogram();
    /** From the moment the request really went out (fixed rate only; the closed loop has one view). */
    final Histogram uncorrected = newHistogram();
    final StatusCounts counts = new StatusCounts();
    /** Fixed rate: requests due in the measured window that were never sent because the run ended behind schedule. */
    long notSent;
    /** Requests of the measured window's first and second half (by due/send time), I/O errors included. */
    long firstHalf;
    long secondHalf;

    final LoadOptions options;
    final Timeline timeline;
    final Progress progress;

    WorkerFigures(LoadOptions options, Timeline timeline, Progress progress) {
        this.options = options;
        this.timeline = timeline;
        this.progress = progress;
    }

    final void record(long dueNs, long sentNs, long doneNs, int status) {
        progress.record(status, doneNs - dueNs);
        Timeline.Window window = timeline.window();
        if (!window.contains(dueNs)) return;   // warm-up (and nothing after the window) is discarded
        if (dueNs < window.midNs()) firstHalf++;
        else secondHalf++;
        counts.add(status);
        if (status == StatusCounts.IO_ERROR) return;
        latency.recordValue(Math.max(0, (doneNs - dueNs) / 1000));
        if (options.fixedRate()) uncorrected.recordValue(Math.max(0, (doneNs - sentNs) / 1000));
    }

    final void countNotSent(long due, long intervalNs) {
        for (long d = due; d < timeline.measureEndNs(); d += intervalNs) {
            if (timeline.measured(d)) notSent++;
        }
    }
}
