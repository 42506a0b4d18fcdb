package tradebench.loadclient.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;

/**
 * The same job as {@link HttpConnection#sendForStatus} done by the JDK's
 * HttpClient. Kept only so the client choice in loadclient/README.md can be
 * measured again ({@code load --client jdk}); the hand-written connection was
 * faster on every run there.
 */
public final class JdkSender {

    /** One client for all workers: it pools connections and runs one selector thread, as it is meant to be used. */
    private static HttpClient shared;

    private final HttpClient client;
    private final String base;
    private final Duration timeout;

    public JdkSender(URI base, int timeoutMs) {
        this.client = sharedClient();
        this.base = base.toString();
        this.timeout = Duration.ofMillis(timeoutMs);
    }

    public int sendForStatus(String method, String target) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + target))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(timeout).build();
        try {
            return client.send(request, BodyHandlers.discarding()).statusCode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static synchronized HttpClient sharedClient() {
        if (shared == null) shared = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return shared;
    }

    public void close() {
        // the shared client lives as long as the process
    }
}
