package tradebench.engine;

import java.util.List;
import tradebench.model.Order;
import tradebench.model.OrderStatus;
import tradebench.model.Prices;

/** {@code GET /orders/{id}} (docs/contract.md): the same answer in every Java variant. */
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

    /**
     * The 200 body, or null for a 404.
     *
     * @param known      the order as this process remembers it, or null
     * @param status     its status, read BEFORE the fills were queried: an order
     *                   becomes filled only after its rows are committed, so a
     *                   "filled" read first guarantees the query sees every row
     * @param issuedHere the id lies in the range this process issued
     * @param fills      its SALES rows, by ID
     */
    public static String json(long id, Order known, OrderStatus status, boolean issuedHere, List<Fill> fills) {
        if (known == null && !issuedHere && fills.isEmpty()) return null;
        StringBuilder sb = new StringBuilder(160 + fills.size() * 180);
        sb.append("{\"id\":").append(id);
        if (known != null) {
            sb.append(",\"side\":\"").append(known.side.wire()).append('"')
                    .append(",\"userId\":").append(JsonText.quote(known.userId))
                    .append(",\"productId\":\"").append(known.productId).append('"')
                    .append(",\"quantity\":").append(known.quantity);
            if (known.hasLimit()) sb.append(",\"price\":").append(Prices.format(known.priceCents));
            long filledQty = fills.stream().mapToLong(Fill::quantity).sum();
            sb.append(",\"remaining\":").append(known.quantity - filledQty)
                    .append(",\"status\":\"").append(status.wire()).append('"');
        } else {
            sb.append(",\"status\":\"unknown\"");
        }
        sb.append(",\"fills\":[");
        for (int i = 0; i < fills.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(fills.get(i).json());
        }
        return sb.append("]}").toString();
    }

    public static String notFound(long id) {
        return JsonText.error("no such order: " + id);
    }
}
