package tradebench.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The market rules of contract section 1, written as plainly as they read: every
 * cycle it scans all open orders for every product and every buyer. It is the
 * reference the fast {@link OrderBookMarket} must agree with, not something to
 * run under load (a cycle costs buyers x sellers).
 */
public final class ReferenceMarket implements Market {
    /** Every open order, in arrival (join) order. */
    private final List<Order> open = new ArrayList<>();
    private long nextSeq;

    @Override
    public void join(Order order) {
        order.seq = nextSeq++;
        open.add(order);
    }

    @Override
    public void timeOut(long now, long timeoutMs, List<Order> out) {
        List<Order> expired = new ArrayList<>();
        for (Order o : open) {
            if (now - o.arrivalMs > timeoutMs) expired.add(o);
        }
        for (Order o : expired) {
            o.closed = true;
            open.remove(o);
            out.add(o);
        }
    }

    @Override
    public void trade(List<Sale> out, List<Order> filled) {
        Set<Integer> products = new TreeSet<>();
        for (Order o : open) {
            if (o.side == Side.SELL) products.add(o.productId);
        }
        for (int product : products) tradeProduct(product, out, filled);
    }

    private void tradeProduct(int product, List<Sale> out, List<Order> filled) {
        for (String buyer : buyerQueue(product)) {
            Order best = bestSell(product);
            if (best == null) return; // sold out: stop trading this product
            for (Order po : relevantOrders(buyer, product, best.priceCents)) {
                if (best.remaining == 0) break;
                long q = Math.min(best.remaining, po.remaining);
                out.add(new Sale(po.userId, best.userId, product, best.priceCents, q, po.id, best.id));
                best.remaining -= q;
                po.remaining -= q;
                if (po.remaining == 0) close(po, filled);
            }
            if (best.remaining == 0) close(best, filled);
            // A buyer trades with one SO per cycle: the rest of its wish waits.
        }
    }

    /** Distinct buyers with an open PO for the product, by the arrival of their earliest open PO. */
    private List<String> buyerQueue(int product) {
        Set<String> buyers = new LinkedHashSet<>();
        for (Order o : open) {
            if (o.side == Side.BUY && o.productId == product) buyers.add(o.userId);
        }
        return new ArrayList<>(buyers);
    }

    /** The open SO with the lowest price; equal prices go to the earliest arrival. */
    private Order bestSell(int product) {
        return open.stream()
                .filter(o -> o.side == Side.SELL && o.productId == product)
                .min(Comparator.comparingLong((Order o) -> o.priceCents).thenComparingLong(o -> o.seq))
                .orElse(null);
    }

    /** The buyer's open POs for the product that would pay the price, in arrival order. */
    private List<Order> relevantOrders(String buyer, int product, long priceCents) {
        List<Order> relevant = new ArrayList<>();
        for (Order o : open) {
            if (o.side == Side.BUY && o.productId == product && o.userId.equals(buyer) && o.accepts(priceCents)) {
                relevant.add(o);
            }
        }
        return relevant;
    }

    private void close(Order o, List<Order> filled) {
        o.closed = true;
        open.remove(o);
        filled.add(o);
    }

    @Override
    public int openOrders() {
        return open.size();
    }

    @Override
    public void forEachOpen(Consumer<Order> action) {
        open.forEach(action);
    }
}
