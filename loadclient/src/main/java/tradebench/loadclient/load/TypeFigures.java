package tradebench.loadclient.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The figures of one request type over the window, its phases and its seconds, from the connections' samples
 * merged after the run: sorted by due (or send) time, each phase and each second is one stretch of the array.
 */
final class TypeFigures {

    final RequestType type;
    final boolean fixedRate;
    final double seconds;
    final StatusCounts counts = new StatusCounts();
    final Histogram latency = WorkerFigures.newHistogram();
    final Histogram uncorrected = WorkerFigures.newHistogram();
    final long notSent;
    final List<Part> phases = new ArrayList<>();
    final List<Part> perSecond = new ArrayList<>();

    /** A stretch of the window: a phase or a second. */
    static final class Part {
        final String name;
        final long startMs;
        final long endMs;
        final StatusCounts counts = new StatusCounts();
        Histogram latency = WorkerFigures.newHistogram();
        double p50;
        double p99;
        double max;

        Part(String name, long startMs, long endMs) {
            this.name = name;
            this.startMs = startMs;
            this.endMs = endMs;
        }

        double seconds() {
            return (endMs - startMs) / 1000.0;
        }

        /** Keeps a second's three figures and lets its histogram go. */
        void summarise() {
            p50 = latency.getValueAtPercentile(50) / 1000.0;
            p99 = latency.getValueAtPercentile(99) / 1000.0;
            max = latency.getMaxValue() / 1000.0;
            latency = null;
        }
    }

    /**
     * {@code workers} of {@code type} over a window of {@code windowMs} starting at wall-clock {@code windowStartMs}.
     * Per-second histograms are filled one at a time (one second's stretch, summarised, then the next): a run's
     * memory does not grow with its seconds times its connections.
     */
    TypeFigures(RequestType type, List<WorkerFigures> workers, boolean fixedRate, List<Phase> phaseList,
                long windowStartMs, long windowMs) {
        this.type = type;
        this.fixedRate = fixedRate;
        this.seconds = windowMs / 1000.0;
        long missed = 0;
        for (WorkerFigures w : workers) missed += w.notSent;
        this.notSent = missed;
        for (Phase ph : phaseList) phases.add(new Part(ph.name(), windowStartMs + ph.startMs(), windowStartMs + ph.endMs()));
        count(sortedSamples(workers), windowStartMs, windowMs);
    }

    /** Every client's samples in one array, by their time in the window; the uncorrected latencies recorded. */
    private long[] sortedSamples(List<WorkerFigures> workers) {
        int n = 0;
        for (WorkerFigures w : workers) n += w.samples.size();
        long[] all = new long[n];
        int at = 0;
        for (WorkerFigures w : workers) {
            Samples s = w.samples;
            for (int i = 0; i < s.size(); i++) {
                long p = s.packedAt(i);
                all[at++] = p;
                if (answered(Samples.status(p))) uncorrected.recordValue(s.uncorrectedAt(i));
            }
        }
        Arrays.sort(all);
        return all;
    }

    /** Each sample counted in the window's whole, in its phase and in its second. */
    private void count(long[] all, long windowStartMs, long windowMs) {
        int phase = 0;
        Part second = null;
        for (long p : all) {
            long offset = Samples.offsetMs(p);
            int status = Samples.status(p);
            long us = Samples.latencyUs(p);
            add(counts, latency, status, us);
            while (phase < phases.size() && windowStartMs + offset >= phases.get(phase).endMs) phase++;
            if (phase < phases.size()) add(phases.get(phase).counts, phases.get(phase).latency, status, us);
            while (perSecond.size() <= offset / 1000) second = nextSecond(second, windowStartMs, windowMs);
            add(second.counts, second.latency, status, us);
        }
        // The seconds after the last request (a server that stopped answering) are in the series too, empty.
        while (perSecond.size() < (windowMs + 999) / 1000) second = nextSecond(second, windowStartMs, windowMs);
        if (second != null) second.summarise();
    }

    /** Closes {@code done} (its histogram summarised, then freed) and opens the next second of the window. */
    private Part nextSecond(Part done, long windowStartMs, long windowMs) {
        if (done != null) done.summarise();
        int k = perSecond.size();
        Part next = new Part(Integer.toString(k), windowStartMs + k * 1000L, windowStartMs + Math.min(windowMs, (k + 1) * 1000L));
        perSecond.add(next);
        return next;
    }

    private static boolean answered(int status) {
        return status != StatusCounts.IO_ERROR && status != StatusCounts.CLIENT_TIMEOUT;
    }

    private static void add(StatusCounts counts, Histogram latency, int status, long us) {
        counts.add(status);
        if (answered(status)) latency.recordValue(us);
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", counts.total());
        m.put("requestsPerSecond", DbFigures.round1(counts.total() / seconds));
        m.put("byStatus", counts.byStatus());
        m.put("answers", answers(counts));
        m.put("notSent", notSent);
        m.put("latencyMs", LoadResult.percentiles(latency));
        if (fixedRate) m.put("latencyUncorrectedMs", LoadResult.percentiles(uncorrected));
        List<Map<String, Object>> ps = new ArrayList<>();
        for (Part p : phases) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("name", p.name);
            j.put("startMs", p.startMs);
            j.put("endMs", p.endMs);
            j.put("requests", p.counts.total());
            j.put("requestsPerSecond", DbFigures.round1(p.counts.total() / p.seconds()));
            j.put("byStatus", p.counts.byStatus());
            j.put("answers", answers(p.counts));
            j.put("latencyMs", LoadResult.percentiles(p.latency));
            ps.add(j);
        }
        m.put("phases", ps);
        List<Map<String, Object>> ss = new ArrayList<>();
        for (Part p : perSecond) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("second", Integer.parseInt(p.name));
            j.put("startMs", p.startMs);
            j.put("requests", p.counts.total());
            j.put("byStatus", p.counts.byStatus());
            j.put("p50", p.p50);
            j.put("p99", p.p99);
            j.put("max", p.max);
            ss.add(j);
        }
        m.put("perSecond", ss);
        return m;
    }

    private Map<String, Object> answers(StatusCounts c) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("ok", c.get(type.ok));
        a.put("refused503", c.get(503));
        a.put("timedOut504", c.get(504));
        a.put("other4xx", c.range(400, 500, -1));
        a.put("other5xx", c.range(500, 600, 503) - c.get(504));
        a.put("otherStatus", c.range(1, 400, type.ok));
        a.put("ioErrors", c.socketErrors());
        a.put("clientTimeouts", c.clientTimeouts());
        return a;
    }

    /** The console line of the type, and one per phase. */
    String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(line(type.key, counts, latency, seconds));
        if (fixedRate) {
            sb.append(String.format("%s latency uncorrected (from actual send) ms: p50=%.2f p99=%.2f max=%.2f; not sent %d%n",
                    type.key, uncorrected.getValueAtPercentile(50) / 1000.0, uncorrected.getValueAtPercentile(99) / 1000.0,
                    uncorrected.getMaxValue() / 1000.0, notSent));
        }
        for (Part p : phases) sb.append(line(type.key + " phase " + p.name, p.counts, p.latency, p.seconds()));
        return sb.toString();
    }

    private String line(String label, StatusCounts c, Histogram h, double s) {
        return String.format("%s: requests %d (%.1f/s) ok=%d 503=%d 504=%d other4xx=%d other5xx=%d other=%d io=%d timeouts=%d"
                        + " latency ms p50=%.2f p99=%.2f max=%.2f%n", label, c.total(), c.total() / s, c.get(type.ok), c.get(503),
                c.get(504), c.range(400, 500, -1), c.range(500, 600, 503) - c.get(504), c.range(1, 400, type.ok),
                c.socketErrors(), c.clientTimeouts(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
    }
}
