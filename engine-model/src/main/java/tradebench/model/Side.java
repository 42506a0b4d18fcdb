package tradebench.model;

/** Which side of the market an order is on. */
public enum Side {
    BUY, SELL;

    /** The lower-case name used on the wire ("buy" / "sell"). */
    public String wire() {
        return this == BUY ? "buy" : "sell";
    }
}
