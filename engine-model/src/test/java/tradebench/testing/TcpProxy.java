package tradebench.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of the test database that a test can cut and restore:
 * a real database outage as the service sees it (connections reset, new ones
 * refused), without stopping the server other tests use.
 */
public final class TcpProxy implements AutoCloseable {
    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean up = true;
    /** A slow database: every answer (server to client) held this long first. */
    private volatile long answerDelayMs;
    /** Answers held now, and the most held at once: how many round trips were in flight together. */
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger peakHeld = new AtomicInteger();

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread.ofVirtual().start(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Cut every connection and refuse new ones (they are closed at once). */
    public void cut() {
        up = false;
        for (Socket s : sockets) closeQuietly(s);
        sockets.clear();
    }

    public void restore() {
        up = true;
    }

    /** Every answer from the server arrives {@code ms} later (each connection's answers stay in order). */
    public void delayAnswers(long ms) {
        answerDelayMs = ms;
    }

    /**
     * The most answers {@link #delayAnswers} held at once since the last {@link #resetPeak}: the round
     * trips in flight together, counted where they happen rather than guessed from a duration.
     */
    public int peakHeldAnswers() {
        return peakHeld.get();
    }

    public void resetPeak() {
        peakHeld.set(held.get());
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (!up) {
                    closeQuietly(client);
                    continue;
                }
                Socket target = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(target);
                Thread.ofVirtual().start(() -> pump(client, target, false));
                Thread.ofVirtual().start(() -> pump(target, client, true));
            } catch (IOException e) {
                if (server.isClosed()) return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean answers) {
        byte[] buf = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                long delay = answers ? answerDelayMs : 0;
                if (delay > 0) hold(delay);
                out.write(buf, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // one side closed: close both below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void hold(long ms) throws InterruptedException {
        peakHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
        try {
            Thread.sleep(ms);
        } finally {
            held.decrementAndGet();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        server.close();
    }
}
