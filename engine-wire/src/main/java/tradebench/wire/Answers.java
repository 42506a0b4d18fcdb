package tradebench.wire;

import tradebench.json.JsonText;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;

/** The JSON bodies of contract section 3, written by hand: they are small and fixed in shape. */
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

    /** GET /stats */
    public static String stats(ServiceStats s) {
        StringBuilder sb = new StringBuilder(256 + s.engines().size() * 160);
        sb.append("{\"variant\":").append(JsonText.quote(s.variant())).append(",\"uptimeMs\":").append(s.uptimeMs())
                .append(",\"accepted\":").append(s.accepted()).append(",\"rejected\":").append(s.rejectedCount())
                .append(",\"overloaded\":").append(s.overloadedCount())
                .append(",\"salesPersisted\":").append(s.salesPersisted())
                .append(",\"salesLastMinute\":").append(s.salesLastMinute())
                .append(",\"persistenceFailures\":").append(s.persistenceFailures())
                .append(",\"openOrders\":").append(s.openOrders())
                .append(",\"pendingOrders\":").append(s.pendingOrders())
                .append(",\"engines\":[");
        for (int i = 0; i < s.engines().size(); i++) {
            EngineStats e = s.engines().get(i);
            if (i > 0) sb.append(',');
            sb.append("{\"engine\":").append(e.engine).append(",\"accepted\":").append(e.acceptedCount())
                    .append(",\"openOrders\":").append(e.openOrders()).append(",\"pendingOrders\":").append(e.pendingOrders())
                    .append(",\"salesPersisted\":").append(e.salesPersisted()).append(",\"cycles\":").append(e.cycles())
                    .append(",\"persistenceFailures\":").append(e.persistenceFailures()).append('}');
        }
        return sb.append("]}").toString();
    }
}
