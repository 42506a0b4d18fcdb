package tradebench.loadclient.load;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import tradebench.loadclient.OrderMix;
import tradebench.loadclient.audit.SentOrder;

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

    final RequestType type;
    /**
     * From the due time (fixed rate) or the send time (closed loop). The orders' only: the views' figures come from
     * their {@link #samples} (hundreds of view clients would hold hundreds of histograms for a few answers each).
     */
    final Histogram latency;
    /** From the moment the request really went out (fixed rate only; the closed loop has one view). */
    final Histogram uncorrected;
    final StatusCounts counts = new StatusCounts();
    /** Every request of the window, for the figures per type, phase and second; null when the run has none. */
    final Samples samples;
    /** The orders answered 202, with their ids ({@code --orders-out}); null when not asked for. */
    final List<SentOrder> accepted;
    /** Fixed rate: requests due in the measured window that were never sent because the run ended behind schedule. */
    long notSent;
    /** Requests of the measured window's first and second half (by due/send time), I/O errors included. */
    long firstHalf;
    long secondHalf;
    /** Orders answered 202 whose body held no id (the views and the order file miss them). */
    long acceptedWithoutId;

    final LoadOptions options;
    final Timeline timeline;
    final Progress progress;

    WorkerFigures(RequestType type, LoadOptions options, Timeline timeline, Progress progress) {
        this.type = type;
        this.options = options;
        this.timeline = timeline;
        this.progress = progress;
        boolean orders = type == RequestType.ORDER;
        this.latency = orders ? newHistogram() : null;
        this.uncorrected = orders ? newHistogram() : null;
        this.samples = options.detailed() ? new Samples(fixedRate()) : null;
        this.accepted = orders && options.ordersOut() != null ? new ArrayList<>() : null;
    }

    final boolean fixedRate() {
        return type == RequestType.ORDER ? options.fixedRate() : options.viewFixedRate();
    }

    final void record(long dueNs, long sentNs, long doneNs, int status) {
        progress.record(status, doneNs - dueNs);
        Timeline.Window window = timeline.window();
        if (!window.contains(dueNs)) return;   // warm-up (and nothing after the window) is discarded
        if (dueNs < window.midNs()) firstHalf++;
        else secondHalf++;
        counts.add(status);
        boolean answered = status != StatusCounts.IO_ERROR && status != StatusCounts.CLIENT_TIMEOUT;
        long latencyUs = Math.max(0, (doneNs - dueNs) / 1000);
        long uncorrectedUs = Math.max(0, (doneNs - sentNs) / 1000);
        if (samples != null) samples.add((dueNs - window.startNs()) / 1_000_000, status, answered ? latencyUs : 0, uncorrectedUs);
        if (!answered || latency == null) return;
        latency.recordValue(latencyUs);
        if (options.fixedRate()) uncorrected.recordValue(uncorrectedUs);
    }

    /** An order answered 202 with {@code id} (0: its body named none): kept for the views and the order file. */
    final void placed(long id, IdReservoir ids, OrderMix.Order order, long sentNs, long doneNs) {
        if (id <= 0) {
            acceptedWithoutId++;
            return;
        }
        if (ids != null) ids.add(id);
        if (accepted != null) {
            accepted.add(new SentOrder(id, order.buy(), order.userId(), Integer.toString(order.productId()), order.quantity(),
                    order.priceCents() < 0 ? null : BigDecimal.valueOf(order.priceCents(), 2), sentNs, doneNs));
        }
    }

    final void countNotSent(long due, long intervalNs) {
        for (long d = due; d < timeline.measureEndNs(); d += intervalNs) {
            if (timeline.measured(d)) notSent++;
        }
    }

    /** The id of a 202 body {@code {"id":N,...}} in {@code b[from, to)}; 0 when it names none. */
    static long idOf(byte[] b, int from, int to) {
        for (int i = from; i + 4 < to; i++) {
            if (b[i] != '"' || b[i + 1] != 'i' || b[i + 2] != 'd' || b[i + 3] != '"') continue;
            int j = i + 4;
            while (j < to && (b[j] == ' ' || b[j] == '\t')) j++;
            if (j >= to || b[j] != ':') continue;
            j++;
            while (j < to && (b[j] == ' ' || b[j] == '\t')) j++;
            long id = 0;
            int digits = 0;
            while (j < to && b[j] >= '0' && b[j] <= '9' && digits < 18) {
                id = id * 10 + (b[j++] - '0');
                digits++;
            }
            return digits > 0 ? id : 0;
        }
        return 0;
    }
}
