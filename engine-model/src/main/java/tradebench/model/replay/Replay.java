package tradebench.model.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import tradebench.model.Market;
import tradebench.model.Order;
import tradebench.model.Prices;
import tradebench.model.Sale;
import tradebench.json.JsonText;

/**
 * Runs a {@link Scenario} through a {@link Market} with no clock, no threads and
 * no database (contract section 2). Orders wait in an inbox until the next trade
 * event, as they wait for the next cycle in a running engine.
 */
public final class Replay {
    private Replay() {
    }

    public record SaleRecord(long cycle, Sale sale) {
    }

    public record TimeoutRecord(long cycle, long id) {
    }

    public record OpenRecord(long id, long remaining) {
    }

    public record Result(List<SaleRecord> sales, List<TimeoutRecord> timedOut, List<OpenRecord> open) {
        /** RESULT JSON of contract section 2: sorted, prices as numbers, one record a line. */
        public String toJson() {
            StringBuilder sb = new StringBuilder(64 + sales.size() * 120);
            sb.append("{\n  \"sales\": [");
            String sep = "\n    ";
            for (SaleRecord r : sales) {
                Sale s = r.sale();
                sb.append(sep).append("{\"cycle\": ").append(r.cycle())
                        .append(", \"productId\": \"").append(s.productId())
                        .append("\", \"buyer\": ").append(JsonText.quote(s.buyer()))
                        .append(", \"seller\": ").append(JsonText.quote(s.seller()))
                        .append(", \"price\": ").append(Prices.format(s.priceCents()))
                        .append(", \"quantity\": ").append(s.quantity())
                        .append(", \"poId\": ").append(s.poId())
                        .append(", \"soId\": ").append(s.soId()).append('}');
                sep = ",\n    ";
            }
            sb.append(sales.isEmpty() ? "],\n" : "\n  ],\n").append("  \"timedOut\": [");
            sep = "\n    ";
            for (TimeoutRecord r : timedOut) {
                sb.append(sep).append("{\"cycle\": ").append(r.cycle()).append(", \"id\": ").append(r.id()).append('}');
                sep = ",\n    ";
            }
            sb.append(timedOut.isEmpty() ? "],\n" : "\n  ],\n").append("  \"open\": [");
            sep = "\n    ";
            for (OpenRecord r : open) {
                sb.append(sep).append("{\"id\": ").append(r.id()).append(", \"remaining\": ").append(r.remaining()).append('}');
                sep = ",\n    ";
            }
            return sb.append(open.isEmpty() ? "]\n}\n" : "\n  ]\n}\n").toString();
        }
    }

    public static Result run(Scenario scenario, Supplier<Market> marketFactory) {
        Market market = marketFactory.get();
        List<Order> inbox = new ArrayList<>();
        List<SaleRecord> sales = new ArrayList<>();
        List<TimeoutRecord> timedOut = new ArrayList<>();
        List<Sale> cycleSales = new ArrayList<>();
        List<Order> expired = new ArrayList<>();
        List<Order> filled = new ArrayList<>();
        long cycle = 0;
        for (Scenario.Event e : scenario.events()) {
            if (!e.isTrade()) {
                inbox.add(e.order().fresh());
                continue;
            }
            for (Order o : inbox) market.join(o);
            inbox.clear();
            market.timeOut(e.t(), scenario.timeoutMs(), expired);
            market.trade(cycleSales, filled);
            for (Order o : expired) timedOut.add(new TimeoutRecord(cycle, o.id));
            for (Sale s : cycleSales) sales.add(new SaleRecord(cycle, s));
            expired.clear();
            cycleSales.clear();
            filled.clear();
            cycle++;
        }
        List<OpenRecord> open = new ArrayList<>();
        market.forEachOpen(o -> open.add(new OpenRecord(o.id, o.remaining())));
        for (Order o : inbox) open.add(new OpenRecord(o.id, o.remaining()));
        sales.sort(Comparator.comparingLong(SaleRecord::cycle)
                .thenComparingLong(r -> r.sale().poId()).thenComparingLong(r -> r.sale().soId()));
        timedOut.sort(Comparator.comparingLong(TimeoutRecord::cycle).thenComparingLong(TimeoutRecord::id));
        open.sort(Comparator.comparingLong(OpenRecord::id));
        return new Result(sales, timedOut, open);
    }
}
