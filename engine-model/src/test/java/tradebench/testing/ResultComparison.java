package tradebench.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Compares a replay RESULT with the expected one as the conformance README
 * says: same records, same keys, prices as numbers (1e-9), every other number
 * an integer.
 */
public final class ResultComparison {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultComparison() {
    }

    /** The differences, empty when the results agree. */
    public static List<String> differences(String expectedJson, String actualJson) throws IOException {
        JsonNode expected = JSON.readTree(expectedJson), actual = JSON.readTree(actualJson);
        List<String> diffs = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        actual.fieldNames().forEachRemaining(keys::add);
        if (!keys.equals(List.of("sales", "timedOut", "open")) && !(keys.size() == 3 && keys.containsAll(List.of("sales", "timedOut", "open")))) {
            diffs.add("top-level keys " + keys);
        }
        for (String list : List.of("sales", "timedOut", "open")) {
            JsonNode e = expected.get(list), a = actual.get(list);
            if (a == null || !a.isArray()) {
                diffs.add(list + " missing");
                continue;
            }
            if (e.size() != a.size()) diffs.add(list + ": " + a.size() + " records, expected " + e.size());
            for (int i = 0; i < Math.min(e.size(), a.size()); i++) {
                String d = recordDiff(e.get(i), a.get(i));
                if (d != null) {
                    diffs.add(list + "[" + i + "]: " + d + " expected " + e.get(i) + " got " + a.get(i));
                    if (diffs.size() > 10) return diffs;
                }
            }
        }
        return diffs;
    }

    private static String recordDiff(JsonNode e, JsonNode a) {
        if (e.size() != a.size()) return "keys differ";
        Iterator<String> it = e.fieldNames();
        while (it.hasNext()) {
            String k = it.next();
            JsonNode ev = e.get(k), av = a.get(k);
            if (av == null) return "missing " + k;
            if (k.equals("price")) {
                if (!av.isNumber() || Math.abs(ev.asDouble() - av.asDouble()) > 1e-9) return k;
            } else if (ev.isTextual()) {
                if (!av.isTextual() || !ev.asText().equals(av.asText())) return k;
            } else if (!av.isIntegralNumber() || ev.asLong() != av.asLong()) {
                return k;
            }
        }
        return null;
    }
}
