package tradebench.ring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A thread per member, each blocked in take() on its own LinkedBlockingQueue (java-threads' and java-virtual's
 * hand-over between a request thread and an engine): platform threads or virtual threads, by the builder.
 */
public final class QueueRing implements Ring {
    private final List<Thread> threads = new ArrayList<>();
    private final List<BlockingQueue<String>> queues = new ArrayList<>();

    public QueueRing(Tally tally, Thread.Builder builder) {
        int n = tally.members();
        for (int i = 0; i < n; i++) {
            queues.add(new LinkedBlockingQueue<>());
        }
        for (int i = 0; i < n; i++) {
            int index = i;
            BlockingQueue<String> in = queues.get(i);
            BlockingQueue<String> next = queues.get((i + 1) % n);
            threads.add(builder.start(() -> forward(tally, index, in, next)));
        }
    }

    private static void forward(Tally tally, int index, BlockingQueue<String> in, BlockingQueue<String> next) {
        try {
            while (true) {
                String message = in.take();
                if (tally.arrived(index)) {
                    next.put(message);
                }
            }
        } catch (InterruptedException stopped) {
            // close(): the member's thread ends
        }
    }

    @Override
    public void send(int messages) {
        for (int i = 0; i < messages; i++) {
            queues.get(0).add(AkkaRing.MESSAGE);
        }
    }

    @Override
    public void close() {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
