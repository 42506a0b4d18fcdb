package tradebench.loadclient.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** One HTTP answer as the verifier reads it: status, headers (names in lower case) and body. */
public record HttpResponse(int status, Map<String, String> headers, byte[] body) {

    public String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The content type without parameters ("application/json; charset=utf-8" -> "application/json"). */
    public String mediaType() {
        String ct = header("content-type");
        if (ct == null) return "";
        int semi = ct.indexOf(';');
        return (semi < 0 ? ct : ct.substring(0, semi)).trim().toLowerCase(java.util.Locale.ROOT);
    }
}
