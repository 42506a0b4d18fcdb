package tradebench.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The inserts of {@link ConcurrentSalesWriter}'s lanes that wait too long for their answer, ended from
 * outside: the stalled insert fails and the writer retries it, as after the driver's socket timeout.
 *
 * <p>Why not the socket timeout, as every other writer has it ({@link Database#SOCKET_TIMEOUT_MS}): a lane
 * is a virtual thread, and on a virtual thread a socket read with a timeout parks with a timeout, which
 * schedules a timer task and cancels it when the answer arrives ({@code java.util.concurrent.DelayScheduler}),
 * once per insert. In java-virtual's profile at saturation, per-sale, that scheduler's work was 15 % of the
 * process's CPU. A lane's connection reads without a timeout instead, and this one platform thread looks at
 * the lanes' inserts a few times per limit and aborts the connection of any waiting longer than the limit.
 * An insert costs it two volatile writes.
 */
final class StallWatch implements AutoCloseable {

    /** The insert a lane's connection is waiting for, if any. */
    static final class Insert {
        final Connection connection;
        /** {@link System#nanoTime} when it was sent; 0: none waiting. */
        volatile long sentNanos;

        Insert(Connection connection) {
            this.connection = connection;
        }

        void sent(long nanos) {
            sentNanos = nanos == 0 ? 1 : nanos;
        }

        void answered() {
            sentNanos = 0;
        }
    }

    private final long limitNanos;
    private final long everyMs;
    private final Set<Insert> watched = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean closed;

    StallWatch(Duration limit) {
        this.limitNanos = limit.toNanos();
        this.everyMs = Math.max(10, Math.min(1000, limit.toMillis() / 4));
        this.thread = Thread.ofPlatform().daemon().name("stalled-inserts").start(this::run);
    }

    /** A lane's connection, watched until {@link #unwatch}; its own socket timeout is off meanwhile. */
    Insert watch(Connection c) throws SQLException {
        c.setNetworkTimeout(Runnable::run, 0); // the pool puts the default back when the lane returns it
        Insert insert = new Insert(c);
        watched.add(insert);
        return insert;
    }

    void unwatch(Insert insert) {
        watched.remove(insert);
    }

    private void run() {
        while (!closed) {
            try {
                Thread.sleep(everyMs);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Insert insert : watched) {
                long sent = insert.sentNanos;
                if (sent != 0 && now - sent > limitNanos) {
                    insert.answered();  // once: the lane's read fails and the lane ends
                    abort(insert.connection);
                }
            }
        }
    }

    private static void abort(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            System.err.println("a stalled insert's connection could not be aborted: " + e);
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
