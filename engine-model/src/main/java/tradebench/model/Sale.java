package tradebench.model;

/** One sale: a PO met an SO at the SO's price. A sale is named by (poId, soId). */
public record Sale(String buyer, String seller, int productId, long priceCents, long quantity, long poId, long soId) {
}
