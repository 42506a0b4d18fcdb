package tradebench.engine;

import java.util.List;
import tradebench.model.Sale;

/**
 * Step 4 of a cycle: store its sales, then say so. A blocking writer stores and
 * calls {@code stored} on the engine's own thread before returning; a
 * non-blocking one returns at once and calls it from the driver's thread when
 * the last insert is acknowledged. Either way it retries a failed insert until
 * it is stored (idempotently: docs/contract.md, Storage) and never calls
 * {@code stored} before every sale is in the database.
 */
public interface SalesPersister extends AutoCloseable {
    void store(List<Sale> sales, Runnable stored);

    @Override
    default void close() {
    }
}
