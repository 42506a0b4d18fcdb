package tradebench.ring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Each hand-over a CompletableFuture stage run asynchronously on a fixed pool (an asynchronous driver's callback
 * handed to the service's executor). A member is no thread and no mailbox: two of its messages may run at once.
 */
public final class FutureRing implements Ring {
    private final ExecutorService pool;
    private final Tally tally;

    public FutureRing(Tally tally, int threads) {
        this.tally = tally;
        this.pool = Executors.newFixedThreadPool(threads);
    }

    private void receive(int member, String message) {
        if (tally.arrived(member)) {
            CompletableFuture.runAsync(() -> receive(member + 1, message), pool);
        }
    }

    @Override
    public void send(int messages) {
        for (int i = 0; i < messages; i++) {
            CompletableFuture.runAsync(() -> receive(0, AkkaRing.MESSAGE), pool);
        }
    }

    @Override
    public void close() {
        Pools.stop(pool);
    }
}
