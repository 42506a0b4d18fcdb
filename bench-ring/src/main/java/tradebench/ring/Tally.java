package tradebench.ring;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a ring's members report: every arrival is counted (a hand-over), and a round ends when the last member has
 * received every message. The count is striped (LongAdder) so that counting adds no contention of its own to the
 * hand-over it counts; the last member alone touches its arrivals.
 */
public final class Tally {
    private final int last;
    private final int messages;
    private final LongAdder received = new LongAdder();
    private final AtomicInteger atEnd = new AtomicInteger();
    private volatile CountDownLatch done = new CountDownLatch(1);
    private volatile long lastArrivalNanos;

    public Tally(int members, int messages) {
        if (members < 1 || messages < 1) {
            throw new IllegalArgumentException("a ring needs a member and a message: " + members + " x " + messages);
        }
        this.last = members - 1;
        this.messages = messages;
    }

    /** Counts MEMBER's arrival; true when the member forwards it (every member but the last). */
    public boolean arrived(int member) {
        received.increment();
        if (member != last) {
            return true;
        }
        if (atEnd.incrementAndGet() == messages) {
            lastArrivalNanos = System.nanoTime();
            done.countDown();
        }
        return false;
    }

    /** A new round: called while the ring is idle (the previous round complete). */
    public void begin() {
        received.reset();
        atEnd.set(0);
        lastArrivalNanos = 0;
        done = new CountDownLatch(1);
    }

    /** True when the last member received every message within TIMEOUT. */
    public boolean await(Duration timeout) throws InterruptedException {
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    public long received() {
        return received.sum();
    }

    public int arrivedAtEnd() {
        return atEnd.get();
    }

    public long lastArrivalNanos() {
        return lastArrivalNanos;
    }

    public int members() {
        return last + 1;
    }

    public int messages() {
        return messages;
    }
}
