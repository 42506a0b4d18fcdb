package tradebench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tradebench.engine.ServiceStats;

/** The /stats body of both Java HTTP stacks (contract section 3): its fields, their order, numbers as numbers. */
class AnswersTest {

    private static final List<String> COUNTERS = List.of("accepted", "rejected", "overloaded", "salesPersisted",
            "salesLastMinute", "persistenceFailures", "openOrders", "pendingOrders");
    private static final List<String> ENGINE = List.of("engine", "accepted", "openOrders", "pendingOrders", "salesPersisted",
            "cycles", "persistenceFailures");

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static ServiceStats twoEngines() {
        ServiceStats s = new ServiceStats("java-test", 2);
        s.engine(0).accepted();
        s.engine(0).accepted();
        s.engine(1).accepted();
        s.engine(0).cycle(4);
        s.engine(1).cycle(1);
        s.engine(1).cycle(1);
        s.engine(1).stored(3);
        s.engine(1).persistenceFailure();
        s.engine(0).pendingFrom(() -> 5);
        s.rejected();
        s.overloaded();
        s.overloaded();
        return s;
    }

    @Test
    void statsFieldByField() throws Exception {
        ServiceStats s = twoEngines();
        JsonNode j = new ObjectMapper().readTree(Answers.stats(s));
        List<String> top = new ArrayList<>(List.of("variant", "uptimeMs"));
        top.addAll(COUNTERS);
        top.add("engines");
        assertEquals(top, names(j));
        assertEquals("java-test", j.get("variant").textValue());
        assertTrue(j.get("uptimeMs").isIntegralNumber() && j.get("uptimeMs").longValue() >= 0, j.toString());
        long[] counters = {3, 1, 2, 3, 3, 1, 5, 5};
        for (int i = 0; i < COUNTERS.size(); i++) {
            JsonNode n = j.get(COUNTERS.get(i));
            assertTrue(n.isIntegralNumber(), COUNTERS.get(i) + " is a number: " + n);
            assertEquals(counters[i], n.longValue(), COUNTERS.get(i));
        }
        long[][] engines = {{0, 2, 4, 5, 0, 1, 0}, {1, 1, 1, 0, 3, 2, 1}};
        assertEquals(2, j.get("engines").size());
        for (int e = 0; e < 2; e++) {
            JsonNode engine = j.get("engines").get(e);
            assertEquals(ENGINE, names(engine), "engine " + e);
            for (int i = 0; i < ENGINE.size(); i++) {
                JsonNode n = engine.get(ENGINE.get(i));
                assertTrue(n.isIntegralNumber(), ENGINE.get(i) + " is a number: " + n);
                assertEquals(engines[e][i], n.longValue(), "engine " + e + " " + ENGINE.get(i));
            }
        }
    }

    @Test
    void statsText() throws Exception {
        ServiceStats s = twoEngines();
        String body = Answers.stats(s);
        long uptime = new ObjectMapper().readTree(body).get("uptimeMs").longValue();
        assertEquals("{\"variant\":\"java-test\",\"uptimeMs\":" + uptime + ",\"accepted\":3,\"rejected\":1,\"overloaded\":2,"
                + "\"salesPersisted\":3,\"salesLastMinute\":3,\"persistenceFailures\":1,\"openOrders\":5,\"pendingOrders\":5,"
                + "\"engines\":[{\"engine\":0,\"accepted\":2,\"openOrders\":4,\"pendingOrders\":5,\"salesPersisted\":0,"
                + "\"cycles\":1,\"persistenceFailures\":0},{\"engine\":1,\"accepted\":1,\"openOrders\":1,\"pendingOrders\":0,"
                + "\"salesPersisted\":3,\"cycles\":2,\"persistenceFailures\":1}]}", body);
    }
}
