package tradebench.engine;

import tradebench.model.Prices;

/** One SALES row, as {@code /orders/{id}} shows it. */
public record Fill(long saleId, String buyer, String seller, String productId, long priceCents, long quantity,
                   long poId, long soId, long created) {
    public String json() {
        return "{\"saleId\":" + saleId + ",\"buyer\":" + JsonText.quote(buyer) + ",\"seller\":" + JsonText.quote(seller)
                + ",\"productId\":" + JsonText.quote(productId) + ",\"price\":" + Prices.format(priceCents)
                + ",\"quantity\":" + quantity + ",\"poId\":" + poId + ",\"soId\":" + soId + ",\"created\":" + created + "}";
    }
}
