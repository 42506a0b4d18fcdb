package tradebench.spray.cluster;

import java.util.concurrent.ConcurrentSkipListSet;

/** The partitions (engine numbers) whose entity runs on this member now: {@code /stats} shows them. */
public final class Hosted {
    private final ConcurrentSkipListSet<Integer> engines = new ConcurrentSkipListSet<>();

    void add(int engine) {
        engines.add(engine);
    }

    void remove(int engine) {
        engines.remove(engine);
    }

    public int[] engines() {
        return engines.stream().mapToInt(Integer::intValue).toArray();
    }
}
