package tradebench.wire;

import tradebench.json.JsonText;
import java.util.List;
import tradebench.engine.Fill;
import tradebench.engine.OrderGateway;
import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.model.Prices;

/**
 * {@code GET /orders/{id}} (contract section 3), the same answer from both Java
 * HTTP stacks. A view is made in two steps, whatever the database driver:
 * <ol>
 * <li>{@link #lookup}: what this process knows of the order, its status read
 *     now, BEFORE the fills are queried;</li>
 * <li>{@link Lookup#answer}: the answer once the order's SALES rows are read.</li>
 * </ol>
 * The order matters: an engine marks an order filled only after every sale of
 * its cycle is committed, so a status of {@code filled} read first guarantees
 * that the query sees every fill.
 *
 * <p>The rule (the same in node-engine): {@code remaining} is the quantity less
 * the stored fills; {@code status} is the engine's, except that an order its
 * engine still calls {@code open} whose stored fills already cover its quantity
 * is shown {@code filled} (its engine marks it so as soon as the storing of its
 * cycle completes). In cluster mode the same holds for {@code lost}: a lost
 * order was never a sale, so one whose fills cover its quantity (its partition
 * filled it on a member cut off from the issuer, and the report never came)
 * is {@code filled}.
 */
public final class OrderViews {
    private OrderViews() {
    }

    /** The id of "/orders/{id}"; 400 when it is not a positive integer. */
    public static long parseId(String text) throws BadRequest {
        if (text == null || text.isEmpty() || text.length() > 18) throw new BadRequest("order id must be a positive integer");
        long v = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') throw new BadRequest("order id must be a positive integer");
            v = v * 10 + (c - '0');
        }
        if (v == 0) throw new BadRequest("order id must be a positive integer");
        return v;
    }

    /** Step 1, before the fills are queried. */
    public static Lookup lookup(OrderGateway gateway, long id) {
        Order known = gateway.registry().find(id);
        return new Lookup(id, known, known == null ? null : known.status(), gateway.ids().issued(id));
    }

    /** An HTTP answer: status and JSON body. */
    public record Answer(int status, String body) {
    }

    /**
     * What the registry said of order {@code id} before its fills were read.
     *
     * @param known      the order as this process remembers it, or null
     * @param status     its status at the lookup (null when unknown; {@code LOST} with no
     *                   order: cluster mode's order of a member that is gone, held by no partition)
     * @param issuedHere the id lies in the range this process issued
     */
    public record Lookup(long id, Order known, OrderStatus status, boolean issuedHere) {
        /** Step 2: 200 with the view, or 404 when nobody knows the order. */
        public Answer answer(List<Fill> fills) {
            if (known == null && status == null && !issuedHere && fills.isEmpty()) {
                return new Answer(404, JsonText.error("no such order: " + id));
            }
            StringBuilder sb = new StringBuilder(160 + fills.size() * 180);
            sb.append("{\"id\":").append(id);
            if (known != null) {
                long remaining = known.quantity - fills.stream().mapToLong(Fill::quantity).sum();
                boolean covered = remaining <= 0 && (status == OrderStatus.OPEN || status == OrderStatus.LOST);
                OrderStatus shown = covered ? OrderStatus.FILLED : status;
                sb.append(",\"side\":\"").append(known.side.wire()).append('"')
                        .append(",\"userId\":").append(JsonText.quote(known.userId))
                        .append(",\"productId\":\"").append(known.productId).append('"')
                        .append(",\"quantity\":").append(known.quantity);
                if (known.hasLimit()) sb.append(",\"price\":").append(Prices.format(known.priceCents));
                sb.append(",\"remaining\":").append(remaining)
                        .append(",\"status\":\"").append(shown.wire()).append('"');
            } else if (status == OrderStatus.LOST && fills.isEmpty()) {
                sb.append(",\"status\":\"lost\"");
            } else {
                sb.append(",\"status\":\"unknown\"");
            }
            sb.append(",\"fills\":[");
            for (int i = 0; i < fills.size(); i++) {
                if (i > 0) sb.append(',');
                fill(sb, fills.get(i));
            }
            return new Answer(200, sb.append("]}").toString());
        }
    }

    private static void fill(StringBuilder sb, Fill f) {
        sb.append("{\"saleId\":").append(f.saleId())
                .append(",\"buyer\":").append(JsonText.quote(f.buyer()))
                .append(",\"seller\":").append(JsonText.quote(f.seller()))
                .append(",\"productId\":").append(JsonText.quote(f.productId()))
                .append(",\"price\":").append(Prices.format(f.priceCents()))
                .append(",\"quantity\":").append(f.quantity())
                .append(",\"poId\":").append(f.poId())
                .append(",\"soId\":").append(f.soId())
                .append(",\"created\":").append(f.created()).append('}');
    }
}
