package tradebench.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The fast market: one {@link ProductBook} per product (price-time priority),
 * with the same results as {@link ReferenceMarket}.
 *
 * <p>Why a cycle is cheap:
 * <ul>
 * <li>Only "dirty" products trade: those where an order joined or timed out
 *     since they last traded, or where the last cycle made a sale. A product
 *     whose state did not change since a cycle that sold nothing cannot sell
 *     now (the rules are deterministic), so skipping it changes no result.</li>
 * <li>Within a product, the buyer queue and the best seller are kept ordered,
 *     and trading stops when the product is sold out: a product costs the
 *     buyers it serves (plus those who step aside on maxPrice), not
 *     buyers x sellers.</li>
 * <li>Time-outs walk one queue of all orders in join (= arrival) order and
 *     stop at the first order that is still young.</li>
 * </ul>
 * The original 2014 code scanned and sorted every seller for every buyer, every
 * cycle, and never cleared its backlog under load.
 */
public final class OrderBookMarket implements Market {
    private ProductBook[] books = new ProductBook[128];
    private final Map<Integer, ProductBook> farBooks = new HashMap<>(); // product ids beyond the array
    /** Every order still in {@link #fifo} by join order; closed ones are skipped (and compacted away). */
    private final ArrayDeque<Order> fifo = new ArrayDeque<>();
    private int closedInFifo;
    private int open;
    private long nextSeq;
    /** Products to trade this cycle (each at most once: {@link ProductBook#dirty}). */
    private List<ProductBook> dirty = new ArrayList<>();
    private List<ProductBook> stillDirty = new ArrayList<>();

    private static final int MAX_ARRAY_PRODUCT = 1 << 20;

    private ProductBook book(int productId) {
        if (productId >= 0 && productId < MAX_ARRAY_PRODUCT) {
            if (productId >= books.length) {
                books = java.util.Arrays.copyOf(books, Math.max(productId + 1, books.length * 2));
            }
            ProductBook b = books[productId];
            if (b == null) books[productId] = b = new ProductBook(productId);
            return b;
        }
        return farBooks.computeIfAbsent(productId, ProductBook::new);
    }

    private void markDirty(ProductBook b) {
        if (!b.dirty) {
            b.dirty = true;
            dirty.add(b);
        }
    }

    @Override
    public void join(Order order) {
        order.seq = nextSeq++;
        fifo.addLast(order);
        open++;
        ProductBook b = book(order.productId);
        b.add(order);
        markDirty(b);
    }

    @Override
    public void timeOut(long now, long timeoutMs, List<Order> out) {
        // Orders join in arrival order, so the first young order ends the walk.
        Order head;
        while ((head = fifo.peekFirst()) != null) {
            if (head.closed) {
                fifo.pollFirst();
                closedInFifo--;
                continue;
            }
            if (now - head.arrivalMs <= timeoutMs) break;
            fifo.pollFirst();
            head.closed = true;
            open--;
            ProductBook b = book(head.productId);
            b.removed(head);
            markDirty(b);
            out.add(head);
        }
    }

    @Override
    public void trade(List<Sale> out, List<Order> filled) {
        List<ProductBook> todo = dirty;
        dirty = stillDirty;
        int before = filled.size();
        for (ProductBook b : todo) {
            b.dirty = false;
            // A product that sold something may sell again next cycle (a buyer
            // who still wants more meets the next seller); one that sold
            // nothing cannot, until an order joins or times out.
            if (b.trade(out, filled)) markDirty(b);
        }
        todo.clear();
        stillDirty = todo;
        int closedNow = filled.size() - before; // the books closed them
        open -= closedNow;
        closedInFifo += closedNow;
        compactFifo();
    }

    /** Filled orders linger in the FIFO until they reach its head; drop them when they are the majority. */
    private void compactFifo() {
        if (closedInFifo > 4096 && closedInFifo > fifo.size() / 2) {
            fifo.removeIf(o -> o.closed);
            closedInFifo = 0;
        }
    }

    @Override
    public int openOrders() {
        return open;
    }

    @Override
    public void forEachOpen(Consumer<Order> action) {
        for (Order o : fifo) {
            if (!o.closed) action.accept(o);
        }
    }
}
