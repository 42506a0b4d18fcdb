package tradebench.model;

import java.util.List;
import java.util.function.Consumer;

/**
 * The market of one engine (contract section 1), without clock, threads or database:
 * the engine calls {@link #join}, then {@link #timeOut}, then {@link #trade} once
 * per cycle. Two implementations pass the same suite: {@link ReferenceMarket}
 * (plainly written, the rules as the contract says them) and {@link OrderBookMarket}
 * (fast: a cycle costs what joins and what trades, not buyers x sellers).
 */
public interface Market {
    /** The order joins the market (step 1). Orders join in arrival order. */
    void join(Order order);

    /** Removes every open order with {@code now - arrival > timeoutMs} into {@code out} (step 2). */
    void timeOut(long now, long timeoutMs, List<Order> out);

    /** Trades every product (step 3); sales go to {@code out}, filled orders to {@code filled}. */
    void trade(List<Sale> out, List<Order> filled);

    /** Open orders in the market. */
    int openOrders();

    /** Every open order, in no particular order. */
    void forEachOpen(Consumer<Order> action);
}
