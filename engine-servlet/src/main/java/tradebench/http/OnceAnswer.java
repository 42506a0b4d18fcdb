package tradebench.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import tradebench.wire.OrderViews;

/**
 * An asynchronous view's answer, sent exactly once: the read's, or the time-out's, whichever comes
 * first; the other finds it taken and sends nothing.
 */
final class OnceAnswer {
    /** How long the time-out waits for a read that won the race to finish sending its answer. */
    private static final long WINNER_WAIT_MS = 5_000;

    private final AsyncContext async;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final CountDownLatch sent = new CountDownLatch(1);

    OnceAnswer(AsyncContext async) {
        this.async = async;
    }

    /** Sends {@code answer} and completes the request, unless an answer was taken already. */
    boolean send(OrderViews.Answer answer) {
        if (!taken.compareAndSet(false, true)) return false;
        try {
            ApiServlet.send((HttpServletResponse) async.getResponse(), answer);
        } catch (IOException | IllegalStateException clientGone) {
            // the client left: there is no one to answer
        } finally {
            try {
                async.complete();
            } finally {
                sent.countDown();
            }
        }
        return true;
    }

    /**
     * From the container's time-out: sends {@code answer}, or waits for the read's answer being sent,
     * so that the container never finds the request neither answered nor completed.
     */
    void sendOnTimeout(OrderViews.Answer answer) {
        if (send(answer)) return;
        try {
            sent.await(WINNER_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
