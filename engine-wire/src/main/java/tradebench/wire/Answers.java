package tradebench.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.json.JsonText;
import tradebench.json.JsonWriter;

/**
 * The JSON bodies of contract section 3. The 202 and the short errors are written by hand
 * (the 202 is on the measured path); /stats is built through Jackson ({@link JsonWriter}).
 */
public final class Answers {
    public static final String HEALTH_UP = "{\"status\":\"up\"}";
    public static final String HEALTH_DOWN = "{\"status\":\"down\",\"error\":\"database unreachable\"}";
    public static final String DATABASE_UNREACHABLE = JsonText.error("database unreachable");

    private Answers() {
    }

    /** 202 {"id": N, "side": ..., "status": "accepted"} */
    public static String accepted(OrderGateway.Accepted a) {
        return "{\"id\":" + a.id() + ",\"side\":\"" + a.side() + "\",\"status\":\"accepted\"}";
    }

    /** 503 {"error": reason}, with Retry-After. */
    public static String refused(OrderGateway.Refused r) {
        return JsonText.error(r.reason());
    }

    public static String notFound(String path) {
        return JsonText.error("not found: " + path);
    }

    public static String methodNotAllowed(String method, String path) {
        return JsonText.error("method not allowed: " + method + " " + path);
    }

    /** GET /stats: the service's counters, then one object per engine. */
    public static String stats(ServiceStats s) {
        return JsonWriter.write(json -> {
            json.writeStartObject();
            json.writeStringField("variant", s.variant());
            json.writeNumberField("uptimeMs", s.uptimeMs());
            counters(json, s.accepted(), s.rejectedCount(), s.overloadedCount(), s.salesPersisted(), s.salesLastMinute(),
                    s.persistenceFailures(), s.openOrders(), s.pendingOrders());
            json.writeArrayFieldStart("engines");
            for (EngineStats e : s.engines()) {
                engine(json, e.engine, e.acceptedCount(), e.openOrders(), e.pendingOrders(), e.salesPersisted(), e.cycles(),
                        e.persistenceFailures());
            }
            json.writeEndArray();
            json.writeEndObject();
        });
    }

    /** The counters of /stats (contract section 3), in their order, as fields of the object being written. */
    public static void counters(JsonGenerator json, long accepted, long rejected, long overloaded, long salesPersisted,
                                long salesLastMinute, long persistenceFailures, long openOrders, long pendingOrders)
            throws IOException {
        json.writeNumberField("accepted", accepted);
        json.writeNumberField("rejected", rejected);
        json.writeNumberField("overloaded", overloaded);
        json.writeNumberField("salesPersisted", salesPersisted);
        json.writeNumberField("salesLastMinute", salesLastMinute);
        json.writeNumberField("persistenceFailures", persistenceFailures);
        json.writeNumberField("openOrders", openOrders);
        json.writeNumberField("pendingOrders", pendingOrders);
    }

    /** One element of /stats' "engines". */
    public static void engine(JsonGenerator json, int engine, long accepted, long openOrders, long pendingOrders,
                              long salesPersisted, long cycles, long persistenceFailures) throws IOException {
        json.writeStartObject();
        json.writeNumberField("engine", engine);
        json.writeNumberField("accepted", accepted);
        json.writeNumberField("openOrders", openOrders);
        json.writeNumberField("pendingOrders", pendingOrders);
        json.writeNumberField("salesPersisted", salesPersisted);
        json.writeNumberField("cycles", cycles);
        json.writeNumberField("persistenceFailures", persistenceFailures);
        json.writeEndObject();
    }
}
