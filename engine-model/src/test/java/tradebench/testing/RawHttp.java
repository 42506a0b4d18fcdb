package tradebench.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * Bytes written to a server's socket as they are, and what comes back: for the
 * requests an HTTP client library will not send (a method outside its list, an
 * HTTP/2 connection preface, an h2c upgrade).
 */
public final class RawHttp {
    /** HTTP/2 "prior knowledge" (RFC 9113, section 3.4): the client's connection preface, then an empty SETTINGS frame. */
    public static final byte[] H2_PREFACE;

    static {
        byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] settings = {0, 0, 0, 4, 0, 0, 0, 0, 0}; // length 0, type SETTINGS, no flags, stream 0
        H2_PREFACE = new byte[preface.length + settings.length];
        System.arraycopy(preface, 0, H2_PREFACE, 0, preface.length);
        System.arraycopy(settings, 0, H2_PREFACE, preface.length, settings.length);
    }

    private RawHttp() {
    }

    /** An HTTP/1.1 request asking to switch to HTTP/2 over cleartext (h2c, RFC 7540 section 3.2). */
    public static byte[] h2cUpgrade(String path) {
        return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                + "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** A request without a body with any method (the server's parser decides what it is). */
    public static byte[] request(String method, String path) {
        return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes REQUEST to 127.0.0.1:PORT and returns what the server sent (ISO-8859-1) within 3 s or until it closed. */
    public static String exchange(int port, byte[] request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(3_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                    if (complete(got.toString(StandardCharsets.ISO_8859_1))) break;
                }
            } catch (SocketTimeoutException | java.net.SocketException stoppedSending) {
                // what came before is the answer
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** The status line of an answer ("HTTP/1.1 405 Method Not Allowed"), or the first bytes of something else. */
    public static String statusLine(String answer) {
        int eol = answer.indexOf("\r\n");
        return eol < 0 ? answer : answer.substring(0, eol);
    }

    /** A header's value in an HTTP/1.1 answer (case-insensitive name), or null. */
    public static String header(String answer, String name) {
        int end = answer.indexOf("\r\n\r\n");
        String head = end < 0 ? answer : answer.substring(0, end);
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) return line.substring(colon + 1).trim();
        }
        return null;
    }

    /** The body of an answer (after the blank line). */
    public static String body(String answer) {
        int end = answer.indexOf("\r\n\r\n");
        return end < 0 ? "" : answer.substring(end + 4);
    }

    /** A whole HTTP/1.1 answer with a Content-Length has arrived. */
    private static boolean complete(String got) {
        int end = got.indexOf("\r\n\r\n");
        if (end < 0) return false;
        String length = header(got, "Content-Length");
        if (length == null) return false;
        return got.length() - (end + 4) >= Integer.parseInt(length);
    }
}
