package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;
import tradebench.testing.Wait;

/** The hand-written client against a scripted server: what real servers send back must not confuse it. */
class HttpConnectionTest {

    /**
     * A server that answers request number i of each connection with {@code answer.apply(i)},
     * and closes the connection after {@code perConnection} requests.
     */
    static final class ScriptedServer implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0);
        final AtomicInteger connections = new AtomicInteger();
        /** Connections the server has closed. */
        final AtomicInteger closed = new AtomicInteger();
        final List<String> requestLines = new CopyOnWriteArrayList<>();

        ScriptedServer(int perConnection, IntFunction<String> answer) throws IOException {
            Thread.ofPlatform().daemon(true).start(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        connections.incrementAndGet();
                        Thread.ofPlatform().daemon(true).start(() -> serve(s, perConnection, answer));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        private void serve(Socket s, int perConnection, IntFunction<String> answer) {
            try (s) {
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = s.getOutputStream();
                for (int i = 0; i < perConnection; i++) {
                    String line = in.readLine();
                    if (line == null) return;
                    requestLines.add(line);
                    int length = 0;
                    String h;
                    while ((h = in.readLine()) != null && !h.isEmpty()) {
                        if (h.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(h.substring(15).trim());
                    }
                    for (int k = 0; k < length; k++) in.read();
                    out.write(answer.apply(i).getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
            } catch (IOException ignored) {
                // the client went away
            } finally {
                closed.incrementAndGet();
            }
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static String fixed(int status, String body) {
        return "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    @Test
    void keepsOneConnectionForManyRequests() throws Exception {
        try (ScriptedServer server = new ScriptedServer(1000, i -> fixed(202, "{\"id\":" + i + "}"));
             HttpConnection c = new HttpConnection(server.url(), 5000)) {
            for (int i = 0; i < 100; i++) assertEquals(202, c.sendForStatus("POST", "/buy?x=" + i));
            HttpResponse r = c.send("GET", "/orders/1");
            assertEquals("{\"id\":100}", r.bodyText());
            assertEquals("application/json", r.mediaType());
            assertEquals(1, server.connections.get());
            assertEquals("POST /buy?x=0 HTTP/1.1", server.requestLines.get(0));
        }
    }

    @Test
    void readsChunkedBodies() throws Exception {
        String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
                + "5\r\n{\"a\":\r\n3;ext=1\r\n12}\r\n0\r\nTrailer: x\r\n\r\n";
        try (ScriptedServer server = new ScriptedServer(1000, i -> chunked);
             HttpConnection c = new HttpConnection(server.url(), 5000)) {
            assertEquals("{\"a\":12}", c.send("GET", "/stats").bodyText());
            assertEquals(200, c.sendForStatus("GET", "/stats"), "the next answer starts where the chunks ended");
            assertEquals("{\"a\":12}", c.send("GET", "/stats").bodyText());
            assertEquals(1, server.connections.get());
        }
    }

    @Test
    void honoursConnectionCloseLikeTomcatAfter100Requests() throws Exception {
        try (ScriptedServer server = new ScriptedServer(3, i -> i == 2
                ? "HTTP/1.1 202 X\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}" : fixed(202, "{}"));
             HttpConnection c = new HttpConnection(server.url(), 5000)) {
            for (int i = 0; i < 9; i++) assertEquals(202, c.sendForStatus("POST", "/sell"));
            assertEquals(3, server.connections.get());
        }
    }

    @Test
    void retriesOnceWhenAnIdleKeptAliveConnectionWasClosed() throws Exception {
        // The server closes every connection after one answer without saying so:
        // the second request meets a closed socket and must go out again on a new one.
        try (ScriptedServer server = new ScriptedServer(1, i -> fixed(202, "{}"));
             HttpConnection c = new HttpConnection(server.url(), 5000)) {
            for (int i = 0; i < 5; i++) {
                assertEquals(202, c.sendForStatus("POST", "/buy"));
                int answered = i + 1;
                Wait.until(() -> server.closed.get() == answered, "the server closed the connection it answered on");
            }
            assertEquals(5, server.requestLines.size(), "each request reached the server exactly once");
        }
    }

    @Test
    void readsABodyThatRunsToTheEndOfTheConnection() throws Exception {
        try (ScriptedServer server = new ScriptedServer(1, i -> "HTTP/1.0 200 OK\r\n\r\n{\"status\":\"up\"}");
             HttpConnection c = new HttpConnection(server.url(), 5000)) {
            assertEquals("{\"status\":\"up\"}", c.send("GET", "/health").bodyText());
        }
    }

    @Test
    void aRefusedConnectionIsAnIOException() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (HttpConnection c = new HttpConnection(URI.create("http://127.0.0.1:" + port), 1000)) {
            assertThrows(IOException.class, () -> c.sendForStatus("POST", "/buy"));
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOut() throws Exception {
        try (ServerSocket silent = new ServerSocket(0);
             HttpConnection c = new HttpConnection(URI.create("http://127.0.0.1:" + silent.getLocalPort()), 300)) {
            // without the 300 ms timeout the read would wait forever: a generous deadline, not a timing
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThrows(IOException.class, () -> c.sendForStatus("POST", "/buy")));
        }
    }
}
