package tradebench.loadclient.http;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serial;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A small HTTP/1.1 keep-alive client on one blocking socket: one request at a
 * time, the answer read completely before the next request.
 *
 * <p>The verifier's client (simple, and it returns headers and bodies), and the
 * load client's {@code --client blocking}. Hand-written because it puts a
 * request on the wire with one write and usually one read, no per-request
 * futures, no header maps unless asked; the JDK's HttpClient was 20-40 times
 * slower for this pattern (loadclient/README.md). It understands what the
 * variants send back: Content-Length, chunked bodies, bodies to the end of the
 * connection, and {@code Connection: close} (Tomcat closes a keep-alive
 * connection after 100 requests by default).
 */
public final class HttpConnection implements Closeable {

    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final String host;
    private final int port;
    private final String hostHeader;
    private final int readTimeoutMs;

    private Socket socket;
    private InputStream in;
    private OutputStream out;
    /** Bytes read from the socket and not consumed yet: buf[pos..lim). */
    private byte[] buf = new byte[8192];
    private int pos;
    private int lim;
    /** Whether the current socket has carried a request already (a stale keep-alive connection may be retried). */
    private boolean reused;
    /** Whether any byte came back for the current request (if not, a failure may mean a stale connection). */
    private boolean receivedAny;

    // What parsing the last head found.
    private int status;
    private long contentLength;
    private boolean chunked;
    private boolean closeAfter;
    private Map<String, String> headers;

    public HttpConnection(URI base, int readTimeoutMs) {
        this.host = base.getHost();
        this.port = base.getPort() > 0 ? base.getPort() : 80;
        this.hostHeader = host + ":" + port;
        this.readTimeoutMs = readTimeoutMs;
        if (!"http".equalsIgnoreCase(base.getScheme())) {
            throw new IllegalArgumentException("only http:// URLs are supported: " + base);
        }
    }

    /** Sends a request without body and reads the answer; returns only the status (the body is read and dropped). */
    public int sendForStatus(String method, String target) throws IOException {
        byte[] request = requestBytes(method, target, null, null);
        exchange(request, false, method);
        return status;
    }

    /** Sends a request and returns the whole answer. {@code body} may be null. */
    public HttpResponse send(String method, String target, String contentType, byte[] body) throws IOException {
        byte[] request = requestBytes(method, target, contentType, body);
        byte[] answer = exchange(request, true, method);
        return new HttpResponse(status, headers, answer);
    }

    public HttpResponse send(String method, String target) throws IOException {
        return send(method, target, null, null);
    }

    private byte[] requestBytes(String method, String target, String contentType, byte[] body) {
        StringBuilder sb = new StringBuilder(160);
        sb.append(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
        if (contentType != null) sb.append("Content-Type: ").append(contentType).append("\r\n");
        // POST/PUT without a body still say so: some servers wait for a body otherwise.
        int length = body == null ? 0 : body.length;
        if (body != null || !"GET".equals(method)) sb.append("Content-Length: ").append(length).append("\r\n");
        sb.append("\r\n");
        byte[] head = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        if (length == 0) return head;
        byte[] all = new byte[head.length + length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, length);
        return all;
    }

    private byte[] exchange(byte[] request, boolean keepBody, String method) throws IOException {
        try {
            return exchangeOnce(request, keepBody, method);
        } catch (StaleConnectionException e) {
            // The server closed an idle keep-alive connection before reading our
            // request (not one byte of an answer came back): it never saw it, so
            // one retry on a new connection is safe even for POST.
            close();
            try {
                return exchangeOnce(request, keepBody, method);
            } catch (IOException | RuntimeException again) {
                close();
                throw again;
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private byte[] exchangeOnce(byte[] request, boolean keepBody, String method) throws IOException {
        if (socket == null) connect();
        boolean wasReused = reused;
        receivedAny = false;
        try {
            out.write(request);
            out.flush();
        } catch (IOException e) {
            if (wasReused) throw new StaleConnectionException();
            throw e;
        }
        reused = true;
        boolean gotHead;
        try {
            gotHead = readHead(keepBody);
        } catch (java.net.SocketTimeoutException e) {
            throw e;   // the server is slow, not gone: never send twice
        } catch (IOException e) {
            if (wasReused && !receivedAny) throw new StaleConnectionException();
            throw e;
        }
        if (!gotHead) {
            if (wasReused) throw new StaleConnectionException();
            throw new EOFException("connection closed before any answer");
        }
        byte[] body = readBody(keepBody, method);
        if (closeAfter) close();
        return body;
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(readTimeoutMs);
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = s.getInputStream();
        out = s.getOutputStream();
        pos = lim = 0;
        reused = false;
    }

    /** Reads more bytes into buf; returns false at end of stream. */
    private boolean fill() throws IOException {
        if (pos > 0 && pos == lim) {
            pos = lim = 0;
        }
        if (lim == buf.length) {
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, lim - pos);
                lim -= pos;
                pos = 0;
            } else {
                byte[] bigger = new byte[buf.length * 2];
                System.arraycopy(buf, 0, bigger, 0, lim);
                buf = bigger;
            }
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) return false;
        if (n > 0) receivedAny = true;
        lim += n;
        return true;
    }

    /** Reads and parses the status line and headers. False when the stream ended before any byte of them. */
    private boolean readHead(boolean keepHeaders) throws IOException {
        int headEnd;
        // Heads are small: rescanning from pos after each read is cheaper than tracking offsets across compaction.
        while ((headEnd = indexOfHeadEnd(pos)) < 0) {
            int before = lim - pos;
            if (!fill()) {
                if (before == 0) return false;
                throw new EOFException("connection closed in the middle of an answer's head");
            }
            if (lim - pos > 1 << 20) throw new IOException("answer head longer than 1 MiB");
        }
        int p = pos;
        // "HTTP/1.1 202 Accepted\r\n"
        if (headEnd - p < 12 || buf[p] != 'H' || buf[p + 4] != '/') {
            throw new IOException("not an HTTP answer: " + new String(buf, p, Math.min(40, headEnd - p), StandardCharsets.ISO_8859_1));
        }
        int sp = p;
        while (sp < headEnd && buf[sp] != ' ') sp++;
        status = (buf[sp + 1] - '0') * 100 + (buf[sp + 2] - '0') * 10 + (buf[sp + 3] - '0');
        boolean http10 = buf[p + 7] == '0';
        contentLength = -1;
        chunked = false;
        closeAfter = http10;
        headers = keepHeaders ? new HashMap<>() : null;
        int line = nextLine(p, headEnd);
        while (line < headEnd) {
            int eol = line;
            while (eol < headEnd && buf[eol] != '\r') eol++;
            int colon = line;
            while (colon < eol && buf[colon] != ':') colon++;
            if (colon < eol) header(line, colon, eol);
            line = eol + 2;
        }
        pos = headEnd + 4;
        return true;
    }

    private void header(int nameStart, int colon, int eol) {
        int vs = colon + 1;
        while (vs < eol && (buf[vs] == ' ' || buf[vs] == '\t')) vs++;
        int ve = eol;
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t')) ve--;
        int nameLength = colon - nameStart;
        if (nameLength == 14 && nameIs(nameStart, "content-length")) {
            long n = 0;
            for (int i = vs; i < ve; i++) n = n * 10 + (buf[i] - '0');
            contentLength = n;
        } else if (nameLength == 17 && nameIs(nameStart, "transfer-encoding")) {
            chunked = value(vs, ve).toLowerCase(java.util.Locale.ROOT).contains("chunked");
        } else if (nameLength == 10 && nameIs(nameStart, "connection")) {
            String v = value(vs, ve).toLowerCase(java.util.Locale.ROOT);
            if (v.contains("close")) closeAfter = true;
            else if (v.contains("keep-alive")) closeAfter = false;
        }
        if (headers != null) {
            headers.put(value(nameStart, colon).toLowerCase(java.util.Locale.ROOT), value(vs, ve));
        }
    }

    private boolean nameIs(int start, String lowerName) {
        for (int i = 0; i < lowerName.length(); i++) {
            int c = buf[start + i];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != lowerName.charAt(i)) return false;
        }
        return true;
    }

    private String value(int from, int to) {
        return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private int nextLine(int from, int headEnd) {
        while (from < headEnd && buf[from] != '\r') from++;
        return from + 2;
    }

    private int indexOfHeadEnd(int from) {
        for (int i = Math.max(from, pos); i + 3 < lim; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') return i;
        }
        return -1;
    }

    private byte[] readBody(boolean keep, String method) throws IOException {
        if ("HEAD".equals(method) || status == 204 || status == 304 || status / 100 == 1) {
            return new byte[0];
        }
        if (chunked) return readChunked(keep);
        if (contentLength >= 0) return readFixed(contentLength, keep);
        // Neither length nor chunks: the body runs to the end of the connection.
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        while (true) {
            if (pos < lim) {
                all.write(buf, pos, lim - pos);
                pos = lim;
            }
            if (!fill()) break;
        }
        closeAfter = true;
        return keep ? all.toByteArray() : null;
    }

    private byte[] readFixed(long length, boolean keep) throws IOException {
        if (length > Integer.MAX_VALUE - 16) throw new IOException("answer body too long: " + length);
        byte[] body = keep ? new byte[(int) length] : null;
        int done = 0;
        while (done < length) {
            if (pos == lim && !fill()) throw new EOFException("connection closed in the middle of an answer's body");
            int n = (int) Math.min(lim - pos, length - done);
            if (keep) System.arraycopy(buf, pos, body, done, n);
            pos += n;
            done += n;
        }
        return body;
    }

    private byte[] readChunked(boolean keep) throws IOException {
        java.io.ByteArrayOutputStream all = keep ? new java.io.ByteArrayOutputStream() : null;
        while (true) {
            String sizeLine = readLine();
            int semi = sizeLine.indexOf(';');
            long size = Long.parseLong((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            if (size == 0) {
                // trailers until the empty line
                while (!readLine().isEmpty()) { /* skip */ }
                return keep ? all.toByteArray() : null;
            }
            byte[] chunk = readFixed(size, keep);
            if (keep) all.write(chunk, 0, chunk.length);
            if (!readLine().isEmpty()) throw new IOException("malformed chunked body");
        }
    }

    private String readLine() throws IOException {
        while (true) {
            for (int i = pos; i + 1 < lim; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n') {
                    String s = value(pos, i);
                    pos = i + 2;
                    return s;
                }
            }
            if (!fill()) throw new EOFException("connection closed in the middle of a chunked body");
        }
    }

    /** Whether a socket is open (tests use it to see keep-alive at work). */
    public boolean isOpen() {
        return socket != null;
    }

    @Override
    public void close() {
        Socket s = socket;
        socket = null;
        in = null;
        out = null;
        pos = lim = 0;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing is best effort
            }
        }
    }

    /** The server ended a kept-alive connection before answering: the request may be sent again. */
    private static final class StaleConnectionException extends IOException {
        @Serial
        private static final long serialVersionUID = 1L;

        StaleConnectionException() {
            super("stale keep-alive connection");
        }
    }
}
