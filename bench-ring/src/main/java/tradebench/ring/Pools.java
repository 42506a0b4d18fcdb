package tradebench.ring;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

final class Pools {
    private Pools() {
    }

    /** Stops POOL's threads; a ring that leaves one running would load the next ring's round. */
    static void stop(ExecutorService pool) {
        pool.shutdownNow();
        try {
            if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the ring's pool did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
