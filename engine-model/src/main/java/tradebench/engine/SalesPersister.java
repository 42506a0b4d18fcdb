package tradebench.engine;

import java.util.List;
import tradebench.model.Sale;

/**
 * Step 4 of a cycle: store its sales, then say so. A blocking writer stores and
 * calls {@code stored} on the engine's own thread before returning; a
 * non-blocking one returns at once and calls it from the driver's thread when
 * the last insert is acknowledged. Either way it retries a failed insert until
 * it is stored (idempotently: {@link SalesTable}) and never calls
 * {@code stored} before every sale is in the database.
 *
 * <p>Every writer (the two Java ones and node-engine's) retries the same way:
 * after {@link #FIRST_BACKOFF_MS}, doubling up to {@link #MAX_BACKOFF_MS}.
 */
public interface SalesPersister extends AutoCloseable {
    /** The first pause before a failed insert is tried again. */
    long FIRST_BACKOFF_MS = 50;
    /** The longest pause between two tries: a database that comes back is used within a second. */
    long MAX_BACKOFF_MS = 1000;

    void store(List<Sale> sales, Runnable stored);

    /** The pause after {@code backoffMs}. */
    static long nextBackoff(long backoffMs) {
        return Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }

    @Override
    default void close() {
    }
}
