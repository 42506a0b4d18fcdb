package tradebench.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import tradebench.engine.Config.PersistMode;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.SalesTable;
import tradebench.model.Sale;

/**
 * Blocking JDBC code that keeps a cycle's inserts in flight together (java-virtual).
 * <ul>
 * <li>{@code per-sale}: every sale's INSERT on its own virtual thread, each on a
 *     connection of its own from the pool, at most {@code permits} at a time over
 *     all engines (the pool's size: no thread waits inside the pool, where a wait
 *     times out). The engine's thread forks them and joins them: it starts its
 *     next cycle only when every sale of this one is stored, the guarantee the
 *     asynchronous writers give;</li>
 * <li>{@code batch}: one multi-row INSERT per cycle, as {@link JdbcSalesWriter}.</li>
 * </ul>
 * A failed insert is retried (the back-off of {@link SalesPersister}) until it is
 * stored; the upsert of {@link SalesTable#INSERT_ONE} makes a retry of a sale whose
 * answer was lost store nothing twice.
 */
public final class ConcurrentSalesWriter implements SalesPersister {

    private final Database db;
    private final Semaphore permits;
    private final EngineStats stats;
    private final SalesPersister batch;
    private long lastComplaintMs;

    ConcurrentSalesWriter(Database db, PersistMode mode, EngineStats stats, Semaphore permits) {
        this.db = db;
        this.stats = stats;
        this.permits = permits;
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

    /** Fork: one virtual thread per sale. Join: the executor's close waits for all. Returns the sales that failed. */
    private List<Sale> insertAll(List<Sale> sales) {
        List<Future<Boolean>> inserted = new ArrayList<>(sales.size());
        try (ExecutorService perSale = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Sale s : sales) inserted.add(perSale.submit(() -> insertOne(s)));
        }
        List<Sale> failed = new ArrayList<>();
        for (int i = 0; i < sales.size(); i++) {
            if (!inserted.get(i).resultNow()) failed.add(sales.get(i));
        }
        return failed;
    }

    private boolean insertOne(Sale s) {
        permits.acquireUninterruptibly();
        try (Connection c = db.connection(); PreparedStatement ps = c.prepareStatement(SalesTable.INSERT_ONE)) {
            JdbcSalesWriter.bind(ps, s, System.currentTimeMillis());
            ps.executeUpdate();
            return true;
        } catch (SQLException | RuntimeException e) {
            complain(e);
            return false;
        } finally {
            permits.release();
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
