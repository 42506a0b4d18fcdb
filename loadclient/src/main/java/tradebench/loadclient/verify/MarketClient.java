package tradebench.loadclient.verify;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import tradebench.loadclient.http.HttpConnection;

/** The verifier's view of a variant over one keep-alive connection. Not thread-safe: one per thread. */
final class MarketClient implements AutoCloseable {

    private final HttpConnection connection;

    MarketClient(URI base) {
        this.connection = new HttpConnection(base, 15_000);
    }

    Answer request(String method, String target) throws IOException {
        return Answer.of(method + " " + target, connection.send(method, target));
    }

    Answer postForm(String path, String form) throws IOException {
        return Answer.of("POST " + path + " (form " + form + ")",
                connection.send("POST", path, "application/x-www-form-urlencoded", form.getBytes(StandardCharsets.UTF_8)));
    }

    Answer get(String target) throws IOException {
        return request("GET", target);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        connection.close();
    }
}
