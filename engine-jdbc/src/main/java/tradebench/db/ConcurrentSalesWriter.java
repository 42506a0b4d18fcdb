package tradebench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesTable;
import tradebench.model.Sale;

/**
 * Blocking JDBC code that keeps a cycle's inserts in flight together (java-virtual).
 * <ul>
 * <li>{@code per-sale}: the cycle's sales dealt over as many virtual threads as
 *     this engine's part of the {@link InFlightLimit} shared by all engines allows
 *     now (fewer when the cycle has fewer sales), each storing its share one INSERT after another on a
 *     connection of its own once the limit lets it (no thread waits inside the pool,
 *     where a wait times out: the limit is at most the pool's size). Behind a far
 *     database that is up to the pool's size of inserts in flight, as with a thread
 *     per sale; behind a near one, no more than its round trips say it needs. Each
 *     insert's round trip is told to the limit. The engine's thread forks them and
 *     joins them: it starts its next cycle only when every sale of this one is
 *     stored, the guarantee the asynchronous writers give;</li>
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
    private long lastComplaintMs;

    ConcurrentSalesWriter(Database db, PersistMode mode, EngineStats stats, InFlightLimit inFlight) {
        this.db = db;
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
     * Fork: a virtual thread per share of the sales, as many shares as this writer's part of the limit now.
     * Join: the executor's close waits for all. When the limit moved, the shares give back what they have not
     * tried and it is dealt again over the new number: a long cycle follows the limit rather than keeping
     * the number it started with. Returns the sales that failed.
     */
    private List<Sale> insertAll(List<Sale> sales) {
        List<Sale> failed = new ArrayList<>();
        List<Sale> todo = sales;
        while (!todo.isEmpty()) {
            int width = inFlight.perWriter();
            int n = Math.min(todo.size(), width);
            List<List<Sale>> shares = new ArrayList<>(n);
            for (int i = 0; i < n; i++) shares.add(new ArrayList<>(todo.size() / n + 1));
            for (int i = 0; i < todo.size(); i++) shares.get(i % n).add(todo.get(i));
            List<Future<Leftover>> leftovers = new ArrayList<>(n);
            try (ExecutorService perShare = Executors.newVirtualThreadPerTaskExecutor()) {
                for (List<Sale> share : shares) leftovers.add(perShare.submit(() -> insertShare(share, width)));
            }
            List<Sale> untried = new ArrayList<>();
            for (Future<Leftover> f : leftovers) {
                Leftover l = f.resultNow();
                (l.failed() ? failed : untried).addAll(l.sales());
            }
            todo = untried;
        }
        return failed;
    }

    /** What a share did not store: from its first failure on, or what it gave back when the limit moved. */
    private record Leftover(List<Sale> sales, boolean failed) {
    }

    /**
     * A share's sales one after another on one connection, until they are stored, one fails, or this writer's
     * part of the limit is no longer {@code width}.
     */
    private Leftover insertShare(List<Sale> share, int width) {
        int stored = 0;
        inFlight.acquire();
        try (Connection c = db.connection(); PreparedStatement ps = c.prepareStatement(SalesTable.INSERT_ONE)) {
            for (Sale s : share) {
                JdbcSalesWriter.bind(ps, s, System.currentTimeMillis());
                long sent = System.nanoTime();
                ps.executeUpdate();
                long answered = System.nanoTime();
                inFlight.roundTrip(answered - sent, answered);
                stored++;
                if (stored < share.size() && inFlight.perWriter() != width) {
                    return new Leftover(share.subList(stored, share.size()), false);
                }
            }
        } catch (SQLException | RuntimeException e) {
            complain(e);
            return new Leftover(share.subList(stored, share.size()), true);
        } finally {
            inFlight.release();
        }
        return new Leftover(List.of(), false);
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
