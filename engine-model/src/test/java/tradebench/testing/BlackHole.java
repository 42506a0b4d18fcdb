package tradebench.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on loopback that accepts every connection and never answers: a database that has
 * stopped answering while its port still takes connections, the worst case of a read path (a
 * refused connection fails at once, this one only by a time-out).
 */
public final class BlackHole implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    public BlackHole() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread.ofVirtual().start(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far and still open on this side. */
    public int connections() {
        return held.size();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                held.add(server.accept());
            } catch (IOException e) {
                if (server.isClosed()) return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : held) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed by the client
            }
        }
        held.clear();
    }
}
