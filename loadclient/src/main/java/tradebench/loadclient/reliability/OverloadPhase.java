package tradebench.loadclient.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;

/**
 * Overload: measure the variant's capacity (accepted orders/s of a saturating
 * closed loop, after a 3 s warm-up), offer {@code --factor} times it at a fixed rate for
 * {@code --duration} s, then the saturating loop again: within
 * {@code --recovery} s a whole second runs at full speed (see {@link #FULL_SALES}). Excess
 * orders get 503 + Retry-After; /stats accepted equals the 202s counted here;
 * the audit holds over them. Peak RSS is the launcher's (it samples the process tree).
 */
final class OverloadPhase extends Phase {

    /** The saturating closed loop: 32 connections, no pause after a 202, 50 ms after a 503. */
    private static final int SAT_CONNECTIONS = 32;
    private static final int SAT_PAUSE_AFTER_503_MS = 50;
    private static final int WARMUP_S = 3;
    /**
     * A second runs at full speed when the engines store at least 80 % of the capacity's sales per second
     * and at least half the capacity's orders are accepted: the order rate alone falls as the markets fill
     * (a new order then makes more sales, each one more database round trip), the sales rate does not.
     */
    private static final double FULL_SALES = 0.8;
    private static final double FULL_ORDERS = 0.5;

    /** Every order accepted in the phase, of the three loads. */
    private final List<SentOrder> all = new ArrayList<>();
    /** The capacity's saturating loop, the overload at a fixed rate, the saturating loop after it. */
    private LoadDriver cap;
    private LoadDriver over;
    private LoadDriver rec;
    /** Accepted orders/s and stored sales/s of the saturating loop after its warm-up. */
    private double capacity;
    private double capacitySales;
    private double offeredRate;
    /** Seconds after the overload to the end of the first second at full speed; -1: none. */
    private int recoveredIn = -1;
    private final StringBuilder perSecond = new StringBuilder();

    OverloadPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        JsonNode statsBefore = stats();
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            measureTheCapacity(sales);
            overload();
            recover(sales);
            checkTheRatesAndTheAnswers();
            waitQuiet(sales, true);
            checkEveryAcceptedOrderCounted(statsBefore);
            figures.put("salesChecked", audit(all, sales).size());
            OrderLog.write(options.ordersOut(), all);
            reportAndPutFigures();
        }
    }

    /** The saturating loop, its first WARMUP_S seconds left out (the empty inboxes fill at once). */
    private void measureTheCapacity(SalesTable sales) throws Exception {
        cap = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        cap.closedLoop(SAT_CONNECTIONS, 0, SAT_PAUSE_AFTER_503_MS, WARMUP_S + options.measure());
        all.addAll(cap.orders);
        int secs = (int) options.measure();
        capacity = (double) LoadDriver.total(cap.accepted, WARMUP_S, WARMUP_S + secs) / Math.max(1, secs);
        LoadDriver.sleepMs(100);
        capacitySales = (double) sales.countCreated(cap.startMs + WARMUP_S * 1000L,
                cap.startMs + (WARMUP_S + secs) * 1000L) / Math.max(1, secs);
        out.println(String.format("capacity: %.0f orders/s accepted, %.0f sales/s stored under saturation (%s)",
                capacity, capacitySales, cap.summary()));
    }

    /** --factor x the capacity at a fixed rate for --duration s. */
    private void overload() throws InterruptedException {
        double rate = Math.max(20, options.factor() * capacity);
        over = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed() + 1);
        over.fixedRate(Math.max(options.connections(), 64), rate, options.duration());
        all.addAll(over.orders);
        offeredRate = over.total(over.sent) / options.duration();
        out.println(String.format("overload: offered %.0f orders/s (%.1f x capacity) for %.0f s: %s", offeredRate,
                offeredRate / Math.max(1, capacity), options.duration(), over.summary()));
    }

    /** The saturating loop again, stopped after the first whole second at full speed. */
    private void recover(SalesTable sales) throws Exception {
        double recovery = options.recovery();
        rec = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed() + 2);
        Thread runner = Thread.ofPlatform().start(() -> {
            try {
                rec.closedLoop(SAT_CONNECTIONS, 0, SAT_PAUSE_AFTER_503_MS, recovery + 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        for (int s = 0; s < (int) recovery + 1 && recoveredIn < 0; s++) {
            if (atFullSpeed(sales, s)) recoveredIn = s + 1;
        }
        rec.stop();
        runner.join();
        all.addAll(rec.orders);
        out.println("after the overload, per second: " + perSecond + String.format(" (full speed: >= %.0f sales and >= %.0f orders)",
                FULL_SALES * capacitySales, FULL_ORDERS * capacity));
    }

    /** Waits for the end of second {@code s} of the recovery loop; whether it ran at full speed. */
    private boolean atFullSpeed(SalesTable sales, int s) throws SQLException {
        long due = rec.startNs + (s + 1) * 1_000_000_000L;
        while (System.nanoTime() < due) LoadDriver.sleepMs(Math.max(1, (due - System.nanoTime()) / 1_000_000));
        LoadDriver.sleepMs(100);   // answers and inserts of that second still on their way
        long a = rec.accepted.get(s);
        long stored = sales.countCreated(rec.startMs + s * 1000L, rec.startMs + (s + 1) * 1000L);
        perSecond.append(s == 0 ? "" : ", ").append(a).append(" orders/").append(stored).append(" sales");
        return stored >= FULL_SALES * capacitySales && a >= FULL_ORDERS * capacity;
    }

    private void checkTheRatesAndTheAnswers() {
        double factor = options.factor();
        report.expect(capacity >= 5, "overload-capacity", String.format("capacity %.1f orders/s: too small to measure", capacity));
        report.expect(offeredRate >= 0.9 * factor * capacity, "overload-offered", String.format(
                "offered only %.0f orders/s, not %.0f x the capacity %.0f (the client could not keep up)", offeredRate, factor, capacity));
        report.expect(over.total(over.overloaded) > 0, "overload-503", "no order answered 503 at " + factor + " x capacity");
        for (LoadDriver d : List.of(cap, over, rec)) {
            report.expect(d.bad503.get() == 0, "overload-answer", "503 without Retry-After/JSON: " + d.problems);
            report.expect(d.unexpected() == 0, "load-answers", d.unexpected() + " answers neither 202 nor 503: " + d.problems);
            report.expect(d.ioErrors.get() == 0, "load-answers", d.ioErrors.get() + " requests without an answer");
        }
        report.expect(recoveredIn > 0 && recoveredIn <= options.recovery(), "overload-recovery", "no second at full speed within "
                + options.recovery() + " s after the overload: " + perSecond);
    }

    /** /stats accepted grew by exactly the 202s counted here. */
    private void checkEveryAcceptedOrderCounted(JsonNode statsBefore) {
        JsonNode after = stats();
        long acceptedDelta = after == null || statsBefore == null ? -1
                : after.path("accepted").asLong() - statsBefore.path("accepted").asLong();
        report.expect(acceptedDelta == all.size(), "overload-accounted", "/stats accepted grew by " + acceptedDelta
                + ", the client counted " + all.size() + " 202s");
    }

    private void reportAndPutFigures() {
        long served503 = over.total(over.overloaded);
        if (report.failures().isEmpty()) {
            report.ok("overload", String.format("capacity %.0f orders/s (%.0f sales/s); %.0f/s offered for %.0f s: %d accepted,"
                    + " %d answered 503 with Retry-After; full speed again %d s after; /stats accepted = %d = the client's 202s",
                    capacity, capacitySales, offeredRate, options.duration(), over.total(over.accepted), served503, recoveredIn,
                    all.size()));
        }
        figures.put("capacityPerS", Math.round(capacity));
        figures.put("capacitySalesPerS", Math.round(capacitySales));
        figures.put("offeredPerS", Math.round(offeredRate));
        figures.put("offered", over.total(over.sent));
        figures.put("served503", served503);
        figures.put("acceptedDuringOverload", over.total(over.accepted));
        figures.put("recoveryS", recoveredIn);
        figures.put("accepted", all.size());
    }
}
