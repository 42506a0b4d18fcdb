package tradebench.spray.engine;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import tradebench.model.Sale;

/**
 * The SALES ids the driver read back for the sales this process stored
 * (per-sale mode; the 2014 driver could not read them), the most recent
 * {@value #KEPT} of them. {@code /orders/{id}} reads its fills from SALES; it
 * checks them against these ids, which would catch a row stored twice or a
 * fill read from the wrong row.
 */
public final class SaleIds {
    static final int KEPT = 200_000;
    private final ConcurrentHashMap<Key, Long> ids = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Key> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    private record Key(long poId, long soId) {
    }

    /** {@code saleIds[i]} is the id of {@code sales.get(i)}; 0 where unknown. */
    public void record(List<Sale> sales, long[] saleIds) {
        for (int i = 0; i < sales.size(); i++) {
            if (saleIds[i] <= 0) continue;
            Key k = new Key(sales.get(i).poId(), sales.get(i).soId());
            if (ids.put(k, saleIds[i]) == null) {
                order.add(k);
                if (size.incrementAndGet() > KEPT) {
                    Key oldest = order.poll();
                    if (oldest != null) {
                        ids.remove(oldest);
                        size.decrementAndGet();
                    }
                }
            }
        }
    }

    /** The id read back for the sale (poId, soId), or 0 when this process does not know it. */
    public long of(long poId, long soId) {
        Long id = ids.get(new Key(poId, soId));
        return id == null ? 0 : id;
    }
}
