package tradebench.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * The open orders of one product, kept in the orders contract section 1 trades them:
 * sellers by price then arrival (the best on top), buyers by the arrival of
 * their earliest open PO. Orders that time out are dropped lazily: marked
 * closed, skipped when met, compacted when they pile up.
 */
final class ProductBook {
    private static final Comparator<Order> BEST_SELL_FIRST =
            Comparator.comparingLong((Order o) -> o.priceCents).thenComparingLong(o -> o.seq);

    final int productId;
    /** Queued for the next trade step of the market. */
    boolean dirty;

    private final PriorityQueue<Order> sells = new PriorityQueue<>(BEST_SELL_FIRST);
    private int deadSells;
    /** The buyer queue: key = seq of the buyer's earliest open PO. */
    private final TreeMap<Long, Buyer> queue = new TreeMap<>();
    private final HashMap<String, Buyer> buyers = new HashMap<>();

    /** One buyer's open POs for this product, in arrival order; the head is always open. */
    private static final class Buyer {
        final String userId;
        final ArrayDeque<Order> orders = new ArrayDeque<>(2);
        long key;

        Buyer(String userId) {
            this.userId = userId;
        }

        /** Drops closed orders at the head; false when none is left. */
        boolean dropClosedHead() {
            while (!orders.isEmpty() && orders.peekFirst().closed) orders.pollFirst();
            if (orders.isEmpty()) return false;
            key = orders.peekFirst().seq;
            return true;
        }
    }

    ProductBook(int productId) {
        this.productId = productId;
    }

    void add(Order o) {
        if (o.side == Side.SELL) {
            sells.add(o);
            return;
        }
        Buyer b = buyers.get(o.userId);
        if (b == null) {
            b = new Buyer(o.userId);
            b.key = o.seq;
            buyers.put(o.userId, b);
            queue.put(b.key, b);
        }
        b.orders.addLast(o); // later than the head: the buyer keeps its place
    }

    /** The order (already closed) timed out. */
    void removed(Order o) {
        if (o.side == Side.SELL) {
            deadSells++;
            if (deadSells > 64 && deadSells > sells.size() / 2) {
                sells.removeIf(s -> s.closed);
                deadSells = 0;
            }
            return;
        }
        Buyer b = buyers.get(o.userId);
        if (b != null && b.orders.peekFirst() == o) requeue(b);
        // else: not the head; dropped when it gets there
    }

    /** The buyer's head closed: it moves back in the queue, or leaves it. */
    private void requeue(Buyer b) {
        queue.remove(b.key);
        if (b.dropClosedHead()) queue.put(b.key, b);
        else buyers.remove(b.userId);
    }

    private Order bestSell() {
        Order top;
        while ((top = sells.peek()) != null && top.closed) {
            sells.poll();
            deadSells--;
        }
        return top;
    }

    /** One trade step for this product (contract section 1, step 3); true when it sold something. */
    boolean trade(List<Sale> out, List<Order> filled) {
        if (bestSell() == null || queue.isEmpty()) return false;
        boolean sold = false;
        List<Buyer> moved = null;
        Iterator<Buyer> it = queue.values().iterator();
        while (it.hasNext()) {
            Buyer buyer = it.next();
            Order best = bestSell();
            if (best == null) break; // sold out: stop trading this product
            boolean filledPo = false;
            for (Order po : buyer.orders) {
                if (po.closed || !po.accepts(best.priceCents)) continue; // not relevant at this price
                long q = Math.min(best.remaining, po.remaining);
                out.add(new Sale(po.userId, best.userId, productId, best.priceCents, q, po.id, best.id));
                sold = true;
                best.remaining -= q;
                po.remaining -= q;
                if (po.remaining == 0) {
                    po.closed = true;
                    filled.add(po);
                    filledPo = true;
                }
                if (best.remaining == 0) break;
            }
            if (best.remaining == 0) {
                sells.poll();
                best.closed = true;
                filled.add(best);
            }
            // A buyer trades with one SO per cycle. If its earliest PO filled,
            // its place in the queue changes: re-key it after the walk.
            if (filledPo && buyer.orders.peekFirst().closed) {
                it.remove();
                if (moved == null) moved = new ArrayList<>();
                moved.add(buyer);
            }
        }
        if (moved != null) {
            for (Buyer b : moved) {
                if (b.dropClosedHead()) queue.put(b.key, b);
                else buyers.remove(b.userId);
            }
        }
        return sold;
    }
}
