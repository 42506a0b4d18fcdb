package tradebench.spray.cluster;

import java.util.List;
import tradebench.json.JsonText;

/**
 * {@code GET /stats} in cluster mode: the counters of contract section 3 summed
 * over the members that answered (so a client of any member sees the
 * cluster's accepted orders and stored sales, as it would of one process),
 * then this member's own figures under {@code "member"} (with the partitions
 * it runs now, {@code "hosted"}), then {@code "cluster"}: the members that
 * answered and those that did not.
 */
public final class StatsAnswer {
    private StatsAnswer() {
    }

    public static String json(String variant, ClusterProtocol.MemberStats self, List<ClusterProtocol.MemberStats> got,
                              List<String> missing) {
        int engines = got.isEmpty() ? 0 : got.get(0).accepted().length;
        long[] accepted = new long[engines], open = new long[engines], pending = new long[engines], sales = new long[engines],
                cycles = new long[engines], failures = new long[engines];
        long rejected = 0, overloaded = 0, lastMinute = 0;
        for (ClusterProtocol.MemberStats m : got) {
            rejected += m.rejected();
            overloaded += m.overloaded();
            lastMinute += m.salesLastMinute();
            for (int i = 0; i < engines; i++) {
                accepted[i] += m.accepted()[i];
                open[i] += m.openOrders()[i];
                pending[i] += m.pendingOrders()[i];
                sales[i] += m.salesPersisted()[i];
                cycles[i] += m.cycles()[i];
                failures[i] += m.persistenceFailures()[i];
            }
        }
        StringBuilder sb = new StringBuilder(512 + engines * 320);
        sb.append("{\"variant\":").append(JsonText.quote(variant))
                .append(",\"uptimeMs\":").append(self == null ? 0 : self.uptimeMs());
        counters(sb, sum(accepted), rejected, overloaded, sum(sales), lastMinute, sum(failures), sum(open), sum(pending));
        engines(sb, accepted, open, pending, sales, cycles, failures);
        if (self != null) {
            sb.append(",\"member\":{\"address\":").append(JsonText.quote(self.member()));
            counters(sb, sum(self.accepted()), self.rejected(), self.overloaded(), sum(self.salesPersisted()),
                    self.salesLastMinute(), sum(self.persistenceFailures()), sum(self.openOrders()), sum(self.pendingOrders()));
            sb.append(",\"hosted\":[");
            for (int i = 0; i < self.hosted().length; i++) sb.append(i > 0 ? "," : "").append(self.hosted()[i]);
            sb.append(']');
            engines(sb, self.accepted(), self.openOrders(), self.pendingOrders(), self.salesPersisted(), self.cycles(),
                    self.persistenceFailures());
            sb.append('}');
        }
        sb.append(",\"cluster\":{\"members\":[");
        for (int i = 0; i < got.size(); i++) sb.append(i > 0 ? "," : "").append(JsonText.quote(got.get(i).member()));
        sb.append("],\"missing\":[");
        for (int i = 0; i < missing.size(); i++) sb.append(i > 0 ? "," : "").append(JsonText.quote(missing.get(i)));
        return sb.append("]}}").toString();
    }

    private static void counters(StringBuilder sb, long accepted, long rejected, long overloaded, long sales, long lastMinute,
                                 long failures, long open, long pending) {
        sb.append(",\"accepted\":").append(accepted).append(",\"rejected\":").append(rejected)
                .append(",\"overloaded\":").append(overloaded)
                .append(",\"salesPersisted\":").append(sales)
                .append(",\"salesLastMinute\":").append(lastMinute)
                .append(",\"persistenceFailures\":").append(failures)
                .append(",\"openOrders\":").append(open)
                .append(",\"pendingOrders\":").append(pending);
    }

    private static void engines(StringBuilder sb, long[] accepted, long[] open, long[] pending, long[] sales, long[] cycles,
                                long[] failures) {
        sb.append(",\"engines\":[");
        for (int i = 0; i < accepted.length; i++) {
            if (i > 0) sb.append(',');
            sb.append("{\"engine\":").append(i).append(",\"accepted\":").append(accepted[i])
                    .append(",\"openOrders\":").append(open[i]).append(",\"pendingOrders\":").append(pending[i])
                    .append(",\"salesPersisted\":").append(sales[i]).append(",\"cycles\":").append(cycles[i])
                    .append(",\"persistenceFailures\":").append(failures[i]).append('}');
        }
        sb.append(']');
    }

    private static long sum(long[] a) {
        long n = 0;
        for (long x : a) n += x;
        return n;
    }
}
