package tradebench.loadclient;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * The "trivial HTTP server" of the client-speed measurement (README): every
 * request gets the same 202 answer a variant gives, from one selector thread.
 * It does no work, so what limits a run against it is the client (and the
 * machine), which is what the comparison with wrk needs.
 *
 * <p>{@code java -cp loadclient/target/loadclient.jar tradebench.loadclient.TrivialServer PORT}
 */
public final class TrivialServer {

    private static final String BODY = "{\"id\": 1, \"side\": \"buy\", \"status\": \"accepted\"}";
    private static final byte[] ANSWER = ("HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: "
            + BODY.length() + "\r\n\r\n" + BODY).getBytes(StandardCharsets.ISO_8859_1);

    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 3999;
        serve(port);
    }

    static void serve(int port) throws IOException {
        Selector selector = Selector.open();
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", port), 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        System.out.println("trivial server on 127.0.0.1:" + port);
        ByteBuffer in = ByteBuffer.allocateDirect(65536);
        while (true) {
            selector.select();
            Iterator<SelectionKey> it = selector.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey key = it.next();
                it.remove();
                if (!key.isValid()) continue;
                if (key.isAcceptable()) {
                    SocketChannel c = server.accept();
                    if (c == null) continue;
                    c.configureBlocking(false);
                    c.socket().setTcpNoDelay(true);
                    c.register(selector, SelectionKey.OP_READ, new int[1]);
                } else if (key.isReadable()) {
                    onReadable(key, in);
                }
            }
        }
    }

    /** Answers one 202 per request head ("\r\n\r\n") read; bodies are not expected (Content-Length: 0). */
    private static void onReadable(SelectionKey key, ByteBuffer in) {
        SocketChannel c = (SocketChannel) key.channel();
        int[] match = (int[]) key.attachment();   // how much of "\r\n\r\n" the previous read ended with
        try {
            in.clear();
            int n = c.read(in);
            if (n < 0) {
                key.cancel();
                c.close();
                return;
            }
            in.flip();
            int requests = 0;
            int m = match[0];
            while (in.hasRemaining()) {
                byte b = in.get();
                if (b == (m % 2 == 0 ? '\r' : '\n')) m++;
                else m = b == '\r' ? 1 : 0;
                if (m == 4) {
                    requests++;
                    m = 0;
                }
            }
            match[0] = m;
            if (requests > 0) {
                ByteBuffer outBuf = ByteBuffer.allocate(ANSWER.length * requests);
                for (int i = 0; i < requests; i++) outBuf.put(ANSWER);
                outBuf.flip();
                // Answers are small; a blocking-ish loop is fine for this measurement tool.
                while (outBuf.hasRemaining()) c.write(outBuf);
            }
        } catch (IOException e) {
            key.cancel();
            try {
                c.close();
            } catch (IOException ignored) {
                // gone
            }
        }
    }
}
