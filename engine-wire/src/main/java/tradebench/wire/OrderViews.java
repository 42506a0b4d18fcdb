package tradebench.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import tradebench.engine.Fill;
import tradebench.engine.OrderGateway;
import tradebench.json.JsonText;
import tradebench.json.JsonWriter;
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
            return new Answer(200, JsonWriter.write(json -> {
                json.writeStartObject();
                json.writeNumberField("id", id);
                if (known != null) {
                    long remaining = known.quantity - fills.stream().mapToLong(Fill::quantity).sum();
                    // fills that cover the quantity are a filled order, whatever a partition reported (a lost
                    // incarnation may have traded it before it was cut off)
                    boolean covered = remaining <= 0 && (status == OrderStatus.OPEN || status == OrderStatus.LOST);
                    OrderStatus shown = covered ? OrderStatus.FILLED : status;
                    json.writeStringField("side", known.side.wire());
                    json.writeStringField("userId", known.userId);
                    json.writeStringField("productId", Integer.toString(known.productId));
                    json.writeNumberField("quantity", known.quantity);
                    if (known.hasLimit()) json.writeNumberField("price", Prices.toJsonNumber(known.priceCents));
                    json.writeNumberField("remaining", remaining);
                    json.writeStringField("status", shown.wire());
                } else if (status == OrderStatus.LOST && fills.isEmpty()) {
                    json.writeStringField("status", "lost");
                } else {
                    json.writeStringField("status", "unknown");
                }
                json.writeArrayFieldStart("fills");
                for (Fill f : fills) fill(json, f);
                json.writeEndArray();
                json.writeEndObject();
            }));
        }
    }

    private static void fill(JsonGenerator json, Fill f) throws IOException {
        json.writeStartObject();
        json.writeNumberField("saleId", f.saleId());
        json.writeStringField("buyer", f.buyer());
        json.writeStringField("seller", f.seller());
        json.writeStringField("productId", f.productId());
        json.writeNumberField("price", Prices.toJsonNumber(f.priceCents()));
        json.writeNumberField("quantity", f.quantity());
        json.writeNumberField("poId", f.poId());
        json.writeNumberField("soId", f.soId());
        json.writeNumberField("created", f.created());
        json.writeEndObject();
    }
}
