package tradebench.spray.cluster;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import tradebench.json.JsonWriter;
import tradebench.wire.Answers;

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
        long rejectedSum = rejected, overloadedSum = overloaded, lastMinuteSum = lastMinute;
        return JsonWriter.write(json -> {
            json.writeStartObject();
            json.writeStringField("variant", variant);
            json.writeNumberField("uptimeMs", self == null ? 0 : self.uptimeMs());
            Answers.counters(json, sum(accepted), rejectedSum, overloadedSum, sum(sales), lastMinuteSum, sum(failures), sum(open),
                    sum(pending));
            engines(json, accepted, open, pending, sales, cycles, failures);
            if (self != null) {
                json.writeObjectFieldStart("member");
                json.writeStringField("address", self.member());
                Answers.counters(json, sum(self.accepted()), self.rejected(), self.overloaded(), sum(self.salesPersisted()),
                        self.salesLastMinute(), sum(self.persistenceFailures()), sum(self.openOrders()),
                        sum(self.pendingOrders()));
                json.writeArrayFieldStart("hosted");
                for (int partition : self.hosted()) json.writeNumber(partition);
                json.writeEndArray();
                engines(json, self.accepted(), self.openOrders(), self.pendingOrders(), self.salesPersisted(), self.cycles(),
                        self.persistenceFailures());
                json.writeEndObject();
            }
            json.writeObjectFieldStart("cluster");
            json.writeArrayFieldStart("members");
            for (ClusterProtocol.MemberStats m : got) json.writeString(m.member());
            json.writeEndArray();
            json.writeArrayFieldStart("missing");
            for (String m : missing) json.writeString(m);
            json.writeEndArray();
            json.writeEndObject();
            json.writeEndObject();
        });
    }

    private static void engines(JsonGenerator json, long[] accepted, long[] open, long[] pending, long[] sales, long[] cycles,
                                long[] failures) throws IOException {
        json.writeArrayFieldStart("engines");
        for (int i = 0; i < accepted.length; i++) {
            Answers.engine(json, i, accepted[i], open[i], pending[i], sales[i], cycles[i], failures[i]);
        }
        json.writeEndArray();
    }

    private static long sum(long[] a) {
        long n = 0;
        for (long x : a) n += x;
        return n;
    }
}
