package tradebench.model;

/**
 * What `/orders/{id}` says of an order (docs/contract-details.md). {@code LOST} only in
 * java-spray-async's cluster mode: the order was open in a partition whose
 * member crashed (contract section 9).
 */
public enum OrderStatus {
    OPEN("open"), FILLED("filled"), TIMED_OUT("timed_out"), LOST("lost");

    private final String wire;

    OrderStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
