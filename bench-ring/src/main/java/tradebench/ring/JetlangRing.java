package tradebench.ring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jetlang.channels.MemoryChannel;
import org.jetlang.fibers.Fiber;
import org.jetlang.fibers.PoolFiberFactory;

/** Jetlang, as the 2010 ring ran it: a fiber and a channel per member, the fibers on a fixed pool. */
public final class JetlangRing implements Ring {
    private final ExecutorService pool;
    private final PoolFiberFactory fibers;
    private final Fiber[] members;
    private final MemoryChannel<String> first;

    public JetlangRing(Tally tally, int threads) {
        pool = Executors.newFixedThreadPool(threads);
        fibers = new PoolFiberFactory(pool);
        int n = tally.members();
        members = new Fiber[n];
        List<MemoryChannel<String>> channels = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            channels.add(new MemoryChannel<>());
        }
        for (int i = 0; i < n; i++) {
            int index = i;
            MemoryChannel<String> next = channels.get((i + 1) % n);
            members[i] = fibers.create();
            channels.get(i).subscribe(members[i], message -> {
                if (tally.arrived(index)) {
                    next.publish(message);
                }
            });
            members[i].start();
        }
        first = channels.get(0);
    }

    @Override
    public void send(int messages) {
        for (int i = 0; i < messages; i++) {
            first.publish(AkkaRing.MESSAGE);
        }
    }

    @Override
    public void close() {
        for (Fiber f : members) {
            f.dispose();
        }
        fibers.dispose();
        Pools.stop(pool);
    }
}
