package tradebench.spray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cluster mode's /stats: the cluster's sums, this member's own figures, who answered; its fields in order, numbers as numbers. */
class StatsAnswerTest {

    private static final ClusterProtocol.MemberStats A = new ClusterProtocol.MemberStats("a:25520", 1500, 1, 2, 3,
            new long[] {10, 0}, new long[] {4, 0}, new long[] {1, 0}, new long[] {6, 0}, new long[] {100, 0},
            new long[] {0, 0}, new int[] {0});
    private static final ClusterProtocol.MemberStats B = new ClusterProtocol.MemberStats("b:25520", 900, 5, 0, 7,
            new long[] {0, 20}, new long[] {0, 2}, new long[] {0, 3}, new long[] {0, 8}, new long[] {0, 50},
            new long[] {0, 1}, new int[] {1});

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void theClusterTheMemberAndWhoAnswered() throws Exception {
        String body = StatsAnswer.json("java-spray-async", A, List.of(A, B), List.of("c:25520"));
        String engines = "\"engines\":[{\"engine\":0,\"accepted\":10,\"openOrders\":4,\"pendingOrders\":1,\"salesPersisted\":6,"
                + "\"cycles\":100,\"persistenceFailures\":0},{\"engine\":1,\"accepted\":20,\"openOrders\":2,\"pendingOrders\":3,"
                + "\"salesPersisted\":8,\"cycles\":50,\"persistenceFailures\":1}]";
        String own = "\"engines\":[{\"engine\":0,\"accepted\":10,\"openOrders\":4,\"pendingOrders\":1,\"salesPersisted\":6,"
                + "\"cycles\":100,\"persistenceFailures\":0},{\"engine\":1,\"accepted\":0,\"openOrders\":0,\"pendingOrders\":0,"
                + "\"salesPersisted\":0,\"cycles\":0,\"persistenceFailures\":0}]";
        assertEquals("{\"variant\":\"java-spray-async\",\"uptimeMs\":1500,\"accepted\":30,\"rejected\":6,\"overloaded\":2,"
                + "\"salesPersisted\":14,\"salesLastMinute\":10,\"persistenceFailures\":1,\"openOrders\":6,\"pendingOrders\":4,"
                + engines + ",\"member\":{\"address\":\"a:25520\",\"accepted\":10,\"rejected\":1,\"overloaded\":2,"
                + "\"salesPersisted\":6,\"salesLastMinute\":3,\"persistenceFailures\":0,\"openOrders\":4,\"pendingOrders\":1,"
                + "\"hosted\":[0]," + own + "},\"cluster\":{\"members\":[\"a:25520\",\"b:25520\"],\"missing\":[\"c:25520\"]}}", body);

        JsonNode j = new ObjectMapper().readTree(body);
        List<String> counters = List.of("accepted", "rejected", "overloaded", "salesPersisted", "salesLastMinute",
                "persistenceFailures", "openOrders", "pendingOrders");
        List<String> top = new ArrayList<>(List.of("variant", "uptimeMs"));
        top.addAll(counters);
        top.addAll(List.of("engines", "member", "cluster"));
        assertEquals(top, names(j));
        List<String> member = new ArrayList<>(List.of("address"));
        member.addAll(counters);
        member.addAll(List.of("hosted", "engines"));
        assertEquals(member, names(j.get("member")));
        for (String c : counters) {
            assertTrue(j.get(c).isIntegralNumber() && j.get("member").get(c).isIntegralNumber(), c + ": " + body);
        }
        assertTrue(j.get("member").get("hosted").get(0).isIntegralNumber(), body);
    }

    @Test
    void noMemberAnsweredYet() {
        assertEquals("{\"variant\":\"java-spray-async\",\"uptimeMs\":0,\"accepted\":0,\"rejected\":0,\"overloaded\":0,"
                + "\"salesPersisted\":0,\"salesLastMinute\":0,\"persistenceFailures\":0,\"openOrders\":0,\"pendingOrders\":0,"
                + "\"engines\":[],\"cluster\":{\"members\":[],\"missing\":[\"a:25520\",\"b:25520\"]}}",
                StatsAnswer.json("java-spray-async", null, List.of(), List.of("a:25520", "b:25520")));
    }
}
