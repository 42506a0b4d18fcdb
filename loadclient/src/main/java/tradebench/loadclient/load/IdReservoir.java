package tradebench.loadclient.load;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ids of the most recent orders the run placed (from their 202 answers), for the views to ask for: a ring of
 * {@link #CAPACITY} slots written by the order connections, read by the view clients. One atomic increment per
 * accepted order; a view draws a slot uniformly among the filled ones.
 */
final class IdReservoir {

    static final int CAPACITY = 1 << 16;
    private static final int MASK = CAPACITY - 1;

    private final AtomicLongArray slots = new AtomicLongArray(CAPACITY);
    private final AtomicLong written = new AtomicLong();

    void add(long id) {
        long i = written.getAndIncrement();
        slots.set((int) (i & MASK), id);
    }

    /** Orders placed so far (all of them, not only those still in the ring). */
    long placed() {
        return written.get();
    }

    /** An id among the most recent, uniformly; 0 while no order has been accepted yet. */
    long pick(SplittableRandom random) {
        long n = written.get();
        if (n == 0) return 0;
        int filled = (int) Math.min(n, CAPACITY);
        // A slot just claimed may not be written yet (0): another draw finds a written one.
        for (int attempt = 0; attempt < 4; attempt++) {
            long id = slots.get((int) ((n - 1 - random.nextInt(filled)) & MASK));
            if (id != 0) return id;
        }
        return 0;
    }
}
