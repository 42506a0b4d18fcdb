package tradebench.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import tradebench.db.OrderReads;
import tradebench.wire.OrderViews;

/**
 * VIEWS=blocking: the view reads on its request thread. VIEW_LIMIT permits, taken without waiting:
 * a view beyond them is refused at once rather than holding one more request thread for the read.
 */
final class BlockingViews implements Views.Door {
    private final OrderReads reads;
    private final Semaphore slots; // null: VIEW_LIMIT=0, the request threads are the only limit

    BlockingViews(OrderReads reads) {
        this.reads = reads;
        this.slots = reads.path().limited() ? new Semaphore(reads.path().viewLimit()) : null;
    }

    @Override
    public void view(OrderViews.Lookup lookup, long deadlineNanos, HttpServletRequest req, HttpServletResponse resp)
            throws IOException {
        if (slots != null && !slots.tryAcquire()) {
            ApiServlet.send(resp, ViewRead.refused(reads));
            return;
        }
        OrderViews.Answer answer;
        try {
            answer = ViewRead.answer(reads, lookup, deadlineNanos);
        } finally {
            // before the answer: a client that sends its next view on this answer finds the slot free
            if (slots != null) slots.release();
        }
        ApiServlet.send(resp, answer);
    }

    @Override
    public void close() {
        // nothing of its own: the request threads are Tomcat's
    }
}
