package tradebench.loadclient.audit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The audit of SALES against what the run sent. Only rows that name one of
 * the run's orders (by id) or users (by prefix) are judged; a row pairing a
 * run's order with a foreign one is judged on the run's side only, since the
 * foreign order's terms are unknown.
 */
public final class SalesAudit {

    private final Map<Long, SentOrder> ours;
    private final String prefix;
    private final Report report;
    /** Filled quantity per run order, from the judged rows. */
    private final Map<Long, Long> filled = new HashMap<>();

    public SalesAudit(Map<Long, SentOrder> ours, String prefix, Report report) {
        this.ours = ours;
        this.prefix = prefix;
        this.report = report;
    }

    /** Runs every rule over the rows; returns the rows that concern the run. */
    public List<SalesTable.Row> audit(List<SalesTable.Row> rows) {
        Set<String> pairs = new HashSet<>();
        List<SalesTable.Row> concerned = new ArrayList<>();
        for (SalesTable.Row r : rows) {
            if (blank(r.buyer()) || blank(r.seller())) {
                // An empty name can only come from an order with an empty userId, which must have been refused.
                report.fail("sale-empty-name", "a sale with an empty user name: " + r);
            }
            SentOrder po = ours.get(r.poId());
            SentOrder so = ours.get(r.soId());
            if (po == null && so == null && !namesRun(r)) continue;
            concerned.add(r);
            if (!pairs.add(r.poId() + "/" + r.soId())) {
                report.fail("sale-duplicate-pair", "(PO " + r.poId() + ", SO " + r.soId() + ") stored more than once: " + r);
            }
            checkRow(r, po, so);
        }
        checkOverfill();
        return concerned;
    }

    private static boolean blank(String name) {
        return name == null || name.isEmpty();
    }

    /** A row whose buyer or seller is one of this run's users. */
    private boolean namesRun(SalesTable.Row r) {
        return r.buyer() != null && r.buyer().startsWith(prefix) || r.seller() != null && r.seller().startsWith(prefix);
    }

    /** The rules of one row of the run: its orders accepted, its quantity and price, each side against its order. */
    private void checkRow(SalesTable.Row r, SentOrder po, SentOrder so) {
        checkUnacceptedOrder(r, po, so);
        if (r.quantity() < 1) report.fail("sale-quantity", "quantity below 1: " + r);
        if (r.price() == null || r.price().signum() <= 0) report.fail("sale-price", "price not > 0: " + r);
        if (po != null) checkBuySide(r, po);
        if (so != null) checkSellSide(r, so);
    }

    /** A run user's name on a row whose id on that side the run never got a 202 for: a refused order traded. */
    private void checkUnacceptedOrder(SalesTable.Row r, SentOrder po, SentOrder so) {
        if (r.buyer() != null && r.buyer().startsWith(prefix) && po == null) {
            report.fail("sale-unaccepted-order", "buyer " + r.buyer() + " is this run's, but PO " + r.poId()
                    + " is no order the run got a 202 for (a refused order was stored?): " + r);
        }
        if (r.seller() != null && r.seller().startsWith(prefix) && so == null) {
            report.fail("sale-unaccepted-order", "seller " + r.seller() + " is this run's, but SO " + r.soId()
                    + " is no order the run got a 202 for (a refused order was stored?): " + r);
        }
    }

    private void checkBuySide(SalesTable.Row r, SentOrder po) {
        if (!po.buy()) {
            report.fail("sale-side", "PO_ID " + r.poId() + " is a sell order of this run: " + r);
            return;
        }
        report.expect(po.userId().equals(r.buyer()), "sale-names",
                "BUYER_NAME " + r.buyer() + " is not " + po.userId() + ", the buyer of PO " + po.id() + ": " + r);
        report.expect(po.productId().equals(r.productId()), "sale-product",
                "PRODUCT_ID " + r.productId() + " is not " + po.productId() + ", the product of PO " + po.id() + ": " + r);
        if (po.price() != null && r.price() != null) {
            report.expect(r.price().compareTo(po.price()) <= 0, "sale-price",
                    "price " + r.price() + " above the buyer's maxPrice " + po.price() + ": " + r);
        }
        filled.merge(po.id(), (long) r.quantity(), Long::sum);
    }

    private void checkSellSide(SalesTable.Row r, SentOrder so) {
        if (so.buy()) {
            report.fail("sale-side", "SO_ID " + r.soId() + " is a buy order of this run: " + r);
            return;
        }
        report.expect(so.userId().equals(r.seller()), "sale-names",
                "SELLER_NAME " + r.seller() + " is not " + so.userId() + ", the seller of SO " + so.id() + ": " + r);
        report.expect(so.productId().equals(r.productId()), "sale-product",
                "PRODUCT_ID " + r.productId() + " is not " + so.productId() + ", the product of SO " + so.id() + ": " + r);
        if (r.price() != null) {
            report.expect(r.price().compareTo(so.price()) == 0, "sale-price",
                    "price " + r.price() + " is not the seller's price " + so.price() + " (SO " + so.id() + "): " + r);
        }
        filled.merge(so.id(), (long) r.quantity(), Long::sum);
    }

    private void checkOverfill() {
        for (Map.Entry<Long, Long> e : filled.entrySet()) {
            SentOrder o = ours.get(e.getKey());
            if (e.getValue() > o.quantity()) {
                report.fail("sale-overfill", o.side() + " " + o.id() + " of " + o.quantity() + " filled " + e.getValue());
            }
        }
    }

    /** What is left of a run order after the judged rows (its quantity when it never traded). */
    public long remaining(SentOrder o) {
        return o.quantity() - filled.getOrDefault(o.id(), 0L);
    }

    public long filled(SentOrder o) {
        return filled.getOrDefault(o.id(), 0L);
    }

    /**
     * Once the market is quiet no product may keep an open buy and an open sell
     * that could trade. Applied to the random phase's orders (buys without
     * limit, so any open sell crosses them).
     */
    public void checkNoCrossedProducts(List<SentOrder> randomOrders) {
        Map<String, List<SentOrder>> openBuys = new TreeMap<>();
        Map<String, List<SentOrder>> openSells = new TreeMap<>();
        for (SentOrder o : randomOrders) {
            if (remaining(o) <= 0) continue;
            (o.buy() ? openBuys : openSells).computeIfAbsent(o.productId(), k -> new ArrayList<>()).add(o);
        }
        int crossed = 0;
        for (Map.Entry<String, List<SentOrder>> e : openBuys.entrySet()) {
            List<SentOrder> sells = openSells.get(e.getKey());
            if (sells == null) continue;
            crossed++;
            SentOrder b = e.getValue().get(0);
            SentOrder s = sells.get(0);
            report.fail("market-crossed", "product " + e.getKey() + " is quiet with " + e.getValue().size()
                    + " open buys and " + sells.size() + " open sells, e.g. buy " + b.id() + " (" + remaining(b)
                    + " left, no limit) and sell " + s.id() + " (" + remaining(s) + " left at " + s.price() + ")");
        }
        if (crossed == 0) {
            report.ok("market-crossed", "no product left with both open buys and open sells (" + openBuys.size()
                    + " products with open buys, " + openSells.size() + " with open sells)");
        }
    }
}
