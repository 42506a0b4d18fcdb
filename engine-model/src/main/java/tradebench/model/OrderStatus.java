package tradebench.model;

/** What `/orders/{id}` says of an order (docs/contract.md). */
public enum OrderStatus {
    OPEN("open"), FILLED("filled"), TIMED_OUT("timed_out");

    private final String wire;

    OrderStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
