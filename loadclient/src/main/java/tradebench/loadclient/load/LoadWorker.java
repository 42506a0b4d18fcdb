package tradebench.loadclient.load;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import tradebench.loadclient.OrderMix;
import tradebench.loadclient.OrderMix.Order;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * One worker: one connection, its own random stream and its own histograms
 * (merged after the run, so recording never contends).
 *
 * <p>Closed loop: send, read the answer, pause {@code --wait} ms. Fixed rate:
 * request k of this worker is due at {@code first + k * interval}; latency is
 * measured from that due time, so a server stall shows in full even though
 * this worker could not send while it waited (no coordinated omission).
 */
final class LoadWorker extends WorkerFigures implements Runnable {

    private final OrderMix mix;
    private final SplittableRandom random;
    private final HttpConnection connection;
    private final long firstDueNs;
    private final long intervalNs;
    private final IdReservoir ids;
    /** The last order sent and the id its 202 named (0 for none). */
    private Order order;
    private long placedId;

    LoadWorker(int index, LoadOptions options, Timeline timeline, Progress progress, IdReservoir ids) {
        super(RequestType.ORDER, options, timeline, progress);
        this.ids = ids;
        this.mix = new OrderMix(options.products(), options.users(), options.userPrefix());
        this.random = new SplittableRandom(options.seed() + index);
        this.connection = new HttpConnection(options.url(index), options.timeoutMs());
        if (options.fixedRate()) {
            this.intervalNs = (long) (options.concurrency() * 1e9 / options.rate());
            // Spread the workers over one interval so they do not all fire at once.
            this.firstDueNs = timeline.startNs() + intervalNs * index / options.concurrency();
        } else {
            this.intervalNs = 0;
            this.firstDueNs = 0;
        }
    }

    @Override
    public void run() {
        try {
            if (options.fixedRate()) runFixedRate();
            else runClosedLoop();
        } finally {
            connection.close();
        }
    }

    private void runClosedLoop() {
        while (true) {
            long sentNs = System.nanoTime();
            if (sentNs >= timeline.measureEndNs()) return;
            int status = sendOne();
            long doneNs = System.nanoTime();
            record(sentNs, sentNs, doneNs, status);
            keepIfPlaced(status, sentNs, doneNs);
            pause(status);
        }
    }

    private void runFixedRate() {
        long due = firstDueNs;
        // Orders due before the end are sent even a little late; a worker still
        // behind schedule after the grace stops and counts the rest as not sent.
        // (Both limits are read again each time: with --warmup auto the window opens during the run.)
        while (due < timeline.measureEndNs()) {
            long now = System.nanoTime();
            if (now >= timeline.giveUpNs()) {
                countNotSent(due, intervalNs);
                return;
            }
            if (due > now) {
                LockSupport.parkNanos(due - now);
                continue;   // re-check the clock: park may return early
            }
            int status = sendOne();
            long doneNs = System.nanoTime();
            record(due, now, doneNs, status);
            keepIfPlaced(status, now, doneNs);
            due += intervalNs;
        }
    }

    private int sendOne() {
        order = mix.next(random);
        placedId = 0;
        try {
            if (!options.needsOrderIds()) return connection.sendForStatus("POST", order.target());
            HttpResponse r = connection.send("POST", order.target());
            if (r.status() == 202) placedId = idOf(r.body(), 0, r.body().length);
            return r.status();
        } catch (SocketTimeoutException e) {
            return StatusCounts.CLIENT_TIMEOUT;
        } catch (IOException e) {
            return StatusCounts.IO_ERROR;
        }
    }

    private void keepIfPlaced(int status, long sentNs, long doneNs) {
        if (status == 202 && options.needsOrderIds()) placed(placedId, ids, order, sentNs, doneNs);
    }

    private void pause(int status) {
        long ms = options.waitMs();
        // A refused connection fails in microseconds: without a floor, --wait 0 would spin on it.
        if (status == StatusCounts.IO_ERROR || status == StatusCounts.CLIENT_TIMEOUT) ms = Math.max(ms, 10);
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
