package tradebench.engine;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * INBOX_LIMIT: how many accepted orders may wait for one engine. Request
 * threads admit (or are refused: 503), the engine releases what it joins.
 * Used by the inbox of the thread variant and beside the mailbox of the actor
 * variants, where the orders themselves travel as messages.
 */
public final class InboxLimit {
    private final int limit;
    private final AtomicInteger pending = new AtomicInteger();

    public InboxLimit(int limit) {
        this.limit = limit;
    }

    /** Reserve a place; false when the inbox is full. */
    public boolean tryAdmit() {
        if (pending.incrementAndGet() > limit) {
            pending.decrementAndGet();
            return false;
        }
        return true;
    }

    /** The engine took {@code n} orders in. */
    public void release(int n) {
        pending.addAndGet(-n);
    }

    public int pending() {
        return pending.get();
    }
}
