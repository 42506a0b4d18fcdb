package tradebench.loadclient.verify;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import tradebench.loadclient.http.HttpResponse;

/** One answer of the service with its body parsed as JSON where it is JSON. */
record Answer(String request, HttpResponse response, JsonNode json) {

    /** Prices are compared exactly: read them as BigDecimal, never double. */
    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    static Answer of(String request, HttpResponse response) {
        JsonNode json = null;
        try {
            if (response.body().length > 0) json = JSON.readTree(response.body());
        } catch (Exception e) {
            json = null;   // not JSON: the checks that need JSON say so
        }
        return new Answer(request, response, json);
    }

    int status() {
        return response.status();
    }

    boolean isJsonObject() {
        return json != null && json.isObject();
    }

    /** For failure messages: the request, the status and the start of the body. */
    String describe() {
        String body = response.bodyText();
        if (body.length() > 200) body = body.substring(0, 200) + "...";
        return request + " -> " + status() + " " + body.replace('\n', ' ');
    }
}
