package tradebench.engine;

/** One SALES row of an order, as {@code /orders/{id}} lists it. Prices in integer cents. */
public record Fill(long saleId, String buyer, String seller, String productId, long priceCents, long quantity,
                   long poId, long soId, long created) {
}
