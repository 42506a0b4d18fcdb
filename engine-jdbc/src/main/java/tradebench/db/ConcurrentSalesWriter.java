package tradebench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicInteger;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesTable;
import tradebench.model.Sale;

/**
 * Blocking JDBC code that keeps a cycle's inserts in flight together (java-virtual).
 * <ul>
 * <li>{@code per-sale}: the cycle's sales taken one after another by lanes, virtual threads that each hold a
 *     place under the {@link InFlightLimit} shared by all engines and a connection of their own (no thread
 *     waits inside the pool, where a wait times out: the limit is at most the pool's size). A cycle grows its
 *     lanes while the limit has room, so behind a far database it keeps up to the pool's size of inserts in
 *     flight, as with a thread per sale, and behind a near one no more than its round trips say it needs.
 *     Each insert's round trip is told to the limit. The engine's thread forks the lanes and joins them: it
 *     starts its next cycle only when every sale of this one is stored, the guarantee the asynchronous
 *     writers give;</li>
 * <li>{@code batch}: one multi-row INSERT per cycle, as {@link JdbcSalesWriter}.</li>
 * </ul>
 * A failed insert is retried (the back-off of {@link SalesPersister}) until it is
 * stored; the upsert of {@link SalesTable#INSERT_ONE} makes a retry of a sale whose
 * answer was lost store nothing twice.
 */
public final class ConcurrentSalesWriter implements SalesPersister {

    private final Database db;
    private final InFlightLimit inFlight;
    private final EngineStats stats;
    private final SalesPersister batch;
    private final StallWatch stalls;
    private long lastComplaintMs;

    ConcurrentSalesWriter(Database db, PersistMode mode, EngineStats stats, InFlightLimit inFlight, StallWatch stalls) {
        this.db = db;
        this.stalls = stalls;
        this.stats = stats;
        this.inFlight = inFlight;
        this.batch = mode == PersistMode.BATCH ? new JdbcSalesWriter(db, mode, stats) : null;
    }

    @Override
    public void store(List<Sale> sales, Runnable stored) {
        if (batch != null) {
            batch.store(sales, stored);
            return;
        }
        List<Sale> todo = sales;
        long backoffMs = FIRST_BACKOFF_MS;
        boolean interrupted = false;
        while (!todo.isEmpty()) {
            todo = insertAll(todo);
            if (todo.isEmpty()) break;
            stats.persistenceFailure();
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException ie) {
                interrupted = true; // shutting down: still store every sale first
            }
            backoffMs = SalesPersister.nextBackoff(backoffMs);
        }
        if (interrupted) Thread.currentThread().interrupt();
        stored.run();
    }

    /**
     * Fork: lanes, virtual threads that each hold one place under the limit and a connection, and take the
     * cycle's next sale until none is left. The first lane waits for its place (every engine gets at least one
     * insert in flight); a lane forks another before each insert while more sales are left than lanes run and
     * the limit has room now, and gives its place back when the limit fell below what is in flight. So a
     * cycle uses whatever the other engines leave of the limit, from one insert in flight to all of it, and
     * no sale waits behind a share of its own cycle while a place is free.
     * Join: the engine's thread waits until every lane has ended. Returns the sales not stored: those that
     * failed, and those no lane took after the failures.
     */
    private List<Sale> insertAll(List<Sale> sales) {
        Cycle cycle = new Cycle(sales);
        inFlight.acquire();
        cycle.fork();
        cycle.lanes.arriveAndAwaitAdvance();
        List<Sale> notStored = new ArrayList<>(cycle.failed);
        int next = Math.min(cycle.next.get(), sales.size());
        notStored.addAll(sales.subList(next, sales.size()));
        return notStored;
    }

    /** One cycle's sales, the next one to take, and its lanes (the engine's thread is one more party). */
    private final class Cycle {
        final List<Sale> sales;
        final AtomicInteger next = new AtomicInteger();
        final Phaser lanes = new Phaser(1);
        final Queue<Sale> failed = new ConcurrentLinkedQueue<>();

        Cycle(List<Sale> sales) {
            this.sales = sales;
        }

        /** A lane for a place under the limit its caller already holds. */
        void fork() {
            lanes.register();
            Thread.ofVirtual().name("sales-lane-" + stats.engine).start(this::lane);
        }

        int lanesRunning() {
            return lanes.getRegisteredParties() - 1;
        }

        /**
         * Another lane, if the sales no lane has taken are more than the running lanes will take next (this
         * one included unless it {@code took} its sale already) and the limit has room now.
         */
        private void grow(boolean took) {
            int willTake = took ? lanesRunning() - 1 : lanesRunning();
            if (sales.size() - next.get() > willTake && inFlight.tryAcquire()) fork();
        }

        /**
         * Sales one after another on one connection, until none is left, one fails (the rest are left to the
         * other lanes, or to the next try), or the limit wants its place back.
         */
        private void lane() {
            // before this lane's connection and statement, which may cost a round trip each (a statement is
            // prepared on the server the first time a connection uses it): the lanes start together
            grow(false);
            try (Connection c = db.connection(); PreparedStatement ps = c.prepareStatement(SalesTable.INSERT_ONE)) {
                // its reads without a socket timeout: the watch ends a stalled insert (StallWatch says why)
                StallWatch.Insert watched = stalls.watch(c);
                try {
                    while (true) {
                        if (lanesRunning() > 1 && inFlight.overLimit()) return;
                        int i = next.getAndIncrement();
                        if (i >= sales.size()) return;
                        grow(true);
                        Sale s = sales.get(i);
                        try {
                            JdbcSalesWriter.bind(ps, s, System.currentTimeMillis());
                            long sent = System.nanoTime();
                            watched.sent(sent);
                            ps.executeUpdate();
                            long answered = System.nanoTime();
                            watched.answered();
                            inFlight.roundTrip(answered - sent, answered);
                        } catch (SQLException | RuntimeException e) {
                            failed.add(s);
                            throw e;
                        }
                    }
                } finally {
                    stalls.unwatch(watched);
                }
            } catch (SQLException | RuntimeException e) {
                complain(e);
            } finally {
                inFlight.release();
                lanes.arriveAndDeregister();
            }
        }
    }

    /** One line per failure burst, not one per retry (the engines' threads share it: it may say twice). */
    private void complain(Exception e) {
        long now = System.currentTimeMillis();
        if (now - lastComplaintMs > 5000) {
            lastComplaintMs = now;
            System.err.println("engine " + stats.engine + ": storing sales failed, retrying: " + e.getMessage());
        }
    }
}
