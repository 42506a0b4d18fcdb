package tradebench.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tradebench.db.OrderReads;
import tradebench.wire.OrderViews;

/**
 * VIEWS=async: the view leaves its request thread (a Servlet 3.0 asynchronous request) and reads on a
 * bulkhead of its own, READ_POOL platform threads named view-read-N. VIEW_LIMIT permits count the views
 * queued for or running on those threads, taken without waiting; the asynchronous request's time-out
 * (the view's deadline) answers 504 and stops the read: a queued read is dropped, a running one
 * interrupted (its wait for a connection ends at once, its query by the network time-out it set).
 */
final class AsyncViews implements Views.Door {
    private final OrderReads reads;
    private final Semaphore slots; // null: VIEW_LIMIT=0, the queue holds every view
    private final ThreadPoolExecutor bulkhead;

    AsyncViews(OrderReads reads) {
        this.reads = reads;
        this.slots = reads.path().limited() ? new Semaphore(reads.path().viewLimit()) : null;
        int threads = reads.path().pool();
        AtomicInteger n = new AtomicInteger();
        bulkhead = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> Thread.ofPlatform().name("view-read-" + n.incrementAndGet()).daemon(true).unstarted(r));
        bulkhead.allowCoreThreadTimeOut(true); // no threads kept while no one views
    }

    @Override
    public void view(OrderViews.Lookup lookup, long deadlineNanos, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        if (slots != null && !slots.tryAcquire()) {
            ApiServlet.send(resp, ViewRead.refused(reads));
            return;
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        OnceAnswer once = new OnceAnswer(async);
        Read read = new Read(lookup, deadlineNanos, once);
        async.addListener(new ViewListener(once, ViewRead.timedOut(reads), read::stop));
        try {
            bulkhead.execute(read);
        } catch (RejectedExecutionException shuttingDown) {
            read.stop();
            once.send(ViewRead.unreachable());
        }
    }

    @Override
    public void close() {
        bulkhead.shutdownNow();
    }

    private void release() {
        if (slots != null) slots.release();
    }

    /** One view's read: its slot given back exactly once, when it ends or is dropped from the queue. */
    private final class Read implements Runnable {
        private static final int QUEUED = 0;
        private static final int RUNNING = 1;
        private static final int OVER = 2;

        private final OrderViews.Lookup lookup;
        private final long deadlineNanos;
        private final OnceAnswer once;
        private final AtomicInteger state = new AtomicInteger(QUEUED);
        private Thread runner; // guarded by this: interrupted only while it runs this read

        Read(OrderViews.Lookup lookup, long deadlineNanos, OnceAnswer once) {
            this.lookup = lookup;
            this.deadlineNanos = deadlineNanos;
            this.once = once;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(QUEUED, RUNNING)) return; // stopped while queued: its slot is back
            synchronized (this) {
                runner = Thread.currentThread();
            }
            OrderViews.Answer answer;
            try {
                answer = ViewRead.answer(reads, lookup, deadlineNanos);
            } finally {
                synchronized (this) {
                    runner = null;
                    Thread.interrupted(); // the next read on this thread starts uninterrupted
                }
                state.set(OVER);
                // before the answer: a client that sends its next view on this answer finds the slot free
                release();
            }
            once.send(answer);
        }

        void stop() {
            if (state.compareAndSet(QUEUED, OVER)) {
                bulkhead.remove(this);
                release();
                return;
            }
            synchronized (this) {
                if (runner != null) runner.interrupt();
            }
        }
    }
}
