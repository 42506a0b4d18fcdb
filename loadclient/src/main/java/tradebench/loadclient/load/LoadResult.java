package tradebench.loadclient.load;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Every figure of a run, in the order of the JSON document (keys documented in
 * loadclient/README.md: the benchmark harness reads them, keep them stable).
 */
public final class LoadResult {

    final LoadOptions options;
    final Histogram latency;
    final Histogram uncorrected;
    final StatusCounts counts;
    final long notSent;
    final long windowStartMs;
    final long windowEndMs;
    final double measuredSeconds;
    Map<String, Object> db;
    Map<String, Object> warmup;
    Map<String, Object> halves;
    String histogramFile;
    /** Figures per request type, phase and second ({@code types}); null in a run without views or phases. */
    Map<String, TypeFigures> types;
    /** Orders answered 202 without an id in the body (read only when views or the order file need the ids). */
    long acceptedWithoutId;
    /** Orders written to {@code --orders-out}; -1 without it. */
    long ordersWritten = -1;

    LoadResult(LoadOptions options, Histogram latency, Histogram uncorrected, StatusCounts counts, long notSent,
               long windowStartMs, long windowEndMs, double measuredSeconds) {
        this.options = options;
        this.latency = latency;
        this.uncorrected = uncorrected;
        this.counts = counts;
        this.notSent = notSent;
        this.windowStartMs = windowStartMs;
        this.windowEndMs = windowEndMs;
        this.measuredSeconds = measuredSeconds;
    }

    public long requests() {
        return counts.total();
    }

    public long status(int code) {
        return counts.get(code);
    }

    public long ioErrors() {
        return counts.ioErrors();
    }

    public double requestsPerSecond() {
        return requests() / measuredSeconds;
    }

    /** Latency (from the due time in fixed-rate mode) at a percentile, in ms. */
    public double latencyMs(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1000.0;
    }

    public double uncorrectedLatencyMs(double percentile) {
        return uncorrected.getValueAtPercentile(percentile) / 1000.0;
    }

    /** How many answers took at least {@code ms} (from the due time in fixed-rate mode). */
    public long latencyCountAtLeastMs(double ms) {
        return countAtLeast(latency, ms);
    }

    public long uncorrectedCountAtLeastMs(double ms) {
        return countAtLeast(options.fixedRate() ? uncorrected : latency, ms);
    }

    private static long countAtLeast(Histogram h, double ms) {
        long us = (long) (ms * 1000);
        return us > h.getMaxValue() ? 0 : h.getCountBetweenValues(us, h.getMaxValue());
    }

    /** Answers that are neither 202 nor 503, plus I/O errors: what {@code --max-error-rate} bounds. */
    public long errors() {
        return requests() - status(202) - status(503);
    }

    /** {@link #errors()} / requests; 1.0 when the window holds no request at all (nothing was measured). */
    public double errorRate() {
        return requests() == 0 ? 1.0 : errors() / (double) requests();
    }

    public boolean tooManyErrors() {
        return errorRate() > options.maxErrorRate();
    }

    /** The warm-up's real length: the option with a fixed warm-up, what it took with {@code auto}. */
    double warmupSeconds() {
        if (warmup != null && warmup.get("seconds") instanceof Number n) return n.doubleValue();
        return options.window().warmupS();
    }

    public Map<String, Object> warmup() {
        return warmup;
    }

    public String histogramFile() {
        return histogramFile;
    }

    /** The figures of {@code type} ("order", "view") as in the JSON's {@code types}; null when the run has none. */
    public Map<String, Object> type(String type) {
        return types == null || !types.containsKey(type) ? null : types.get(type).toJson();
    }

    public Map<String, Object> halves() {
        return halves;
    }

    public long notSent() {
        return notSent;
    }

    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", options.fixedRate() ? "rate" : "closed");
        m.put("url", options.urlText());
        m.put("concurrency", options.concurrency());
        m.put("waitMs", options.fixedRate() ? null : options.waitMs());
        m.put("rate", options.fixedRate() ? options.rate() : null);
        m.put("durationS", options.window().durationS());
        m.put("warmupS", warmupSeconds());
        m.put("products", options.products());
        m.put("users", options.users());
        m.put("seed", options.seed());
        m.put("windowStartMs", windowStartMs);
        m.put("windowEndMs", windowEndMs);
        m.put("requests", requests());
        m.put("requestsPerSecond", DbFigures.round1(requestsPerSecond()));
        m.put("acceptedPerSecond", DbFigures.round1(status(202) / measuredSeconds));
        Map<String, Object> answers = new LinkedHashMap<>();
        answers.put("accepted202", status(202));
        answers.put("overloaded503", status(503));
        answers.put("other4xx", counts.range(400, 500, -1));
        answers.put("other5xx", counts.range(500, 600, 503));
        answers.put("otherStatus", counts.range(1, 400, 202));
        answers.put("ioErrors", ioErrors());
        m.put("answers", answers);
        m.put("byStatus", counts.byStatus());
        m.put("notSent", notSent);
        m.put("latencyMs", percentiles(latency));
        m.put("latencyUncorrectedMs", percentiles(options.fixedRate() ? uncorrected : latency));
        m.put("db", db);
        m.put("warmup", warmup);
        m.put("halves", halves);
        m.put("histogramFile", histogramFile);
        m.put("errors", errors());
        m.put("errorRate", errorRate());
        m.put("maxErrorRate", options.maxErrorRate());
        if (types != null) {
            Map<String, Object> t = new LinkedHashMap<>();
            for (Map.Entry<String, TypeFigures> e : types.entrySet()) t.put(e.getKey(), e.getValue().toJson());
            m.put("types", t);
        }
        if (ordersWritten >= 0) {
            m.put("ordersOut", options.ordersOut());
            m.put("ordersWritten", ordersWritten);
        }
        if (options.needsOrderIds()) m.put("acceptedWithoutId", acceptedWithoutId);
        return m;
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", h.getTotalCount());
        m.put("mean", round3(h.getTotalCount() == 0 ? 0 : h.getMean() / 1000.0));
        m.put("p50", h.getValueAtPercentile(50) / 1000.0);
        m.put("p90", h.getValueAtPercentile(90) / 1000.0);
        m.put("p99", h.getValueAtPercentile(99) / 1000.0);
        m.put("p999", h.getValueAtPercentile(99.9) / 1000.0);
        m.put("max", h.getMaxValue() / 1000.0);
        return m;
    }

    static double round3(double d) {
        return Math.round(d * 1000) / 1000.0;
    }

    /** The human summary printed at the end of a run: what was run, what was answered, what the database stored. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        runLines(sb);
        answerLines(sb);
        if (db != null) {
            sb.append(String.format("db sales in window=%s salesPerMinute=%s byMinute=%s%n",
                    db.get("sales"), db.get("salesPerMinute"), db.get("salesByMinute")));
            sb.append("db counters (window deltas) ").append(db.get("counters")).append('\n');
        }
        if (types != null) typeLines(sb);
        if (ordersWritten >= 0) sb.append("orders written to ").append(options.ordersOut()).append(": ").append(ordersWritten).append('\n');
        if (acceptedWithoutId > 0) {
            sb.append("WARNING ").append(acceptedWithoutId).append(" orders answered 202 without an id in the body: not viewed, not in the order file\n");
        }
        return sb.toString();
    }

    /** The run's mode, its warm-up and the window's halves. */
    private void runLines(StringBuilder sb) {
        sb.append(String.format("summary mode=%s url=%s concurrency=%d %s duration=%.1fs warmup=%.1fs%n",
                options.fixedRate() ? "rate" : "closed", options.urlText(), options.concurrency(),
                options.fixedRate() ? "rate=" + options.rate() + "/s" : "wait=" + options.waitMs() + "ms",
                options.window().durationS(), warmupSeconds()));
        if (warmup != null) {
            sb.append(String.format("warmup mode=%s seconds=%.1f steady=%s windows orders/s=%s%n", warmup.get("mode"),
                    warmupSeconds(), warmup.get("steady"), warmup.get("windowsOrdersPerSecond")));
        }
        if (halves != null) {
            sb.append(String.format("halves orders/s first=%s second=%s drift=%s%s%n", halves.get("firstOrdersPerSecond"),
                    halves.get("secondOrdersPerSecond"), halves.get("drift"),
                    halves.containsKey("firstSalesPerMinute") ? " sales/min first=" + halves.get("firstSalesPerMinute")
                            + " second=" + halves.get("secondSalesPerMinute") : ""));
        }
    }

    /** The orders/s, the answers by status and the latency (and, at a fixed rate, the uncorrected one). */
    private void answerLines(StringBuilder sb) {
        sb.append(String.format("orders/s %.1f (requests %d in %.1f s; accepted/s %.1f)%n",
                requestsPerSecond(), requests(), measuredSeconds, status(202) / measuredSeconds));
        sb.append(String.format("answers 202=%d 503=%d other4xx=%d other5xx=%d other=%d ioErrors=%d%n",
                status(202), status(503), counts.range(400, 500, -1), counts.range(500, 600, 503),
                counts.range(1, 400, 202), ioErrors()));
        sb.append(latencyLine(options.fixedRate() ? "latency (from intended send time)" : "latency", latency));
        if (options.fixedRate()) {
            sb.append(latencyLine("latency uncorrected (from actual send)", uncorrected));
            sb.append("not sent (run ended behind schedule): ").append(notSent).append('\n');
        }
    }

    /** The view clients' set-up, then each request type's figures. */
    private void typeLines(StringBuilder sb) {
        if (options.viewClients() > 0) {
            sb.append(String.format("views: %d clients, %s, timeout %d ms (never judged by --max-error-rate)%n",
                    options.viewClients(), options.viewFixedRate() ? "rate=" + options.viewRate() + "/s"
                            : "pause=" + options.viewPauseMinMs() + "-" + options.viewPauseMaxMs() + "ms", options.viewTimeoutMs()));
        }
        for (TypeFigures t : types.values()) sb.append(t.summary());
    }

    private static String latencyLine(String label, Histogram h) {
        return String.format("%s ms: p50=%.2f p90=%.2f p99=%.2f p99.9=%.2f max=%.2f (n=%d)%n", label,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
                h.getMaxValue() / 1000.0, h.getTotalCount());
    }
}
