package tradebench.http;

import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.ThreadPoolBulkhead;
import io.github.resilience4j.bulkhead.ThreadPoolBulkheadConfig;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import tradebench.db.OrderReads;
import tradebench.wire.OrderViews;

/**
 * VIEWS=resilience4j: {@link AsyncViews}' shape through Resilience4j 2: a ThreadPoolBulkhead of
 * READ_POOL threads and a queue of VIEW_LIMIT - READ_POOL (at least 1; VIEW_LIMIT=0: {@link #UNLIMITED}),
 * full: 503; a TimeLimiter of READ_TIMEOUT_MS that cancels the running read: 504. The bulkhead counts
 * its threads and its queue, so with READ_POOL above VIEW_LIMIT it lets in READ_POOL + 1 views.
 */
final class Resilience4jViews implements Views.Door {
    /** The bulkhead's queue with VIEW_LIMIT=0: Resilience4j's queue is an array of this size. */
    static final int UNLIMITED = 100_000;

    private final OrderReads reads;
    private final ThreadPoolBulkhead bulkhead;
    private final TimeLimiter limiter;
    private final ScheduledExecutorService timer;
    /** The asynchronous request's own time-out, behind the TimeLimiter's: a view is answered even if it fails. */
    private final long backstopMs;

    Resilience4jViews(OrderReads reads) {
        this.reads = reads;
        int threads = reads.path().pool();
        int queue = reads.path().limited() ? Math.max(1, reads.path().viewLimit() - threads) : UNLIMITED;
        bulkhead = ThreadPoolBulkhead.of("view-read", ThreadPoolBulkheadConfig.custom()
                .coreThreadPoolSize(threads).maxThreadPoolSize(threads).queueCapacity(queue).build());
        limiter = TimeLimiter.of("view-read", TimeLimiterConfig.custom()
                .timeoutDuration(Duration.ofMillis(reads.path().timeoutMs())).cancelRunningFuture(true).build());
        timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().name("view-time-limit").daemon(true).unstarted(r));
        backstopMs = 2L * reads.path().timeoutMs() + 1_000;
    }

    @Override
    public void view(OrderViews.Lookup lookup, long deadlineNanos, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        AsyncContext async = req.startAsync();
        async.setTimeout(backstopMs);
        OnceAnswer once = new OnceAnswer(async);
        async.addListener(new ViewListener(once, ViewRead.timedOut(reads), () -> { }));
        CompletionStage<OrderViews.Answer> read;
        try {
            read = limiter.executeCompletionStage(timer,
                    () -> bulkhead.submit(() -> ViewRead.answer(reads, lookup, deadlineNanos)));
        } catch (BulkheadFullException full) {
            once.send(ViewRead.refused(reads));
            return;
        }
        read.whenComplete((answer, failure) -> once.send(failure == null ? answer : answerTo(failure)));
    }

    private OrderViews.Answer answerTo(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof BulkheadFullException) return ViewRead.refused(reads);
        if (cause instanceof TimeoutException) return ViewRead.timedOut(reads);
        return ViewRead.unreachable();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            bulkhead.close();
        } catch (Exception e) {
            System.err.println("closing the view bulkhead: " + e.getMessage());
        }
    }
}
