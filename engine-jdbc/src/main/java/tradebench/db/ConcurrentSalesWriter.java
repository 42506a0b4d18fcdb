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
 *     the {@link InFlightLimit} shared by all engines allows now (fewer when the
 *     cycle has fewer sales), each storing its share one INSERT after another on a
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
     * Fork: a virtual thread per share of the sales, as many shares as the limit now. Join: the executor's
     * close waits for all. Returns the sales that failed.
     */
    private List<Sale> insertAll(List<Sale> sales) {
        int n = Math.min(sales.size(), inFlight.limit());
        List<List<Sale>> shares = new ArrayList<>(n);
        for (int i = 0; i < n; i++) shares.add(new ArrayList<>(sales.size() / n + 1));
        for (int i = 0; i < sales.size(); i++) shares.get(i % n).add(sales.get(i));
        List<Future<List<Sale>>> unstored = new ArrayList<>(n);
        try (ExecutorService perShare = Executors.newVirtualThreadPerTaskExecutor()) {
            for (List<Sale> share : shares) unstored.add(perShare.submit(() -> insertShare(share)));
        }
        List<Sale> failed = new ArrayList<>();
        for (Future<List<Sale>> f : unstored) failed.addAll(f.resultNow());
        return failed;
    }

    /** A share's sales one after another on one connection; returns those not stored (from the first failure on). */
    private List<Sale> insertShare(List<Sale> share) {
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
            }
        } catch (SQLException | RuntimeException e) {
            complain(e);
        } finally {
            inFlight.release();
        }
        return share.subList(stored, share.size());
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
