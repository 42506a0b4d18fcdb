package tradebench.loadclient.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * Bad input: two counter orders that any bad order in a market would trade
 * with (written to {@code --orders-out} for the later audits), then the
 * generated malformed requests ({@link MalformedRequests}), each
 * a 4xx with a JSON {@code {"error"}}, never a 5xx; raw garbage on fresh
 * sockets, a 4xx or a close; afterwards the service is healthy, /stats
 * accepted and openOrders+pendingOrders did not move, and SALES did not grow.
 */
final class BadInputPhase extends Phase {

    /** What the requests and the garbage got: 4xx answers; garbage closed without an answer, or held open. */
    private int answered4xx;
    private int garbage4xx;
    private int closed;
    private int garbageHeld;

    BadInputPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            if (!placeCounterOrders()) return;
            LoadDriver.sleepMs(300);   // joined their markets
            JsonNode before = stats();
            long rowsBefore = sales.count();
            if (before == null) {
                report.fail("bad-input", "GET /stats unusable before the phase");
                return;
            }
            List<MalformedRequests.Request> requests = MalformedRequests.orders(options.prefix(), options.products(),
                    options.protocol());
            if (!sendMalformedRequests(requests)) return;
            List<MalformedRequests.Garbage> garbage = options.protocol()
                    ? MalformedRequests.garbage(options.url().getHost(), options.seed()) : List.of();
            sendGarbage(garbage);
            LoadDriver.sleepMs(1000);   // anything that slipped into an engine has had time to show
            JsonNode after = checkNothingMoved(sales, before, rowsBefore);
            if (after == null) return;
            reportAndPutFigures(requests.size(), garbage.size());
            figures.put("rejectedDelta", after.path("rejected").asLong() - before.path("rejected").asLong());
        }
    }

    /** Counter orders a bad order that got in anyway would trade with (MalformedRequests.product); false: refused. */
    private boolean placeCounterOrders() throws IOException {
        List<SentOrder> counter = new ArrayList<>();
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            counter.add(place(c, false, options.prefix() + "cs", 1, 1_000_000, "1000000000"));
            counter.add(place(c, true, options.prefix() + "cb", 2, 1_000_000, null));
        }
        if (counter.contains(null)) return false;
        if (options.ordersOut() != null) OrderLog.write(options.ordersOut(), counter);
        return true;
    }

    /** Each request judged; false when one got no answer and the service no longer answers /health 200. */
    private boolean sendMalformedRequests(List<MalformedRequests.Request> requests) throws IOException {
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            for (MalformedRequests.Request k : requests) {
                HttpResponse r;
                try {
                    r = k.form() == null ? c.send(k.method(), k.target())
                            : c.send(k.method(), k.target(), "application/x-www-form-urlencoded",
                                    k.form().getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    report.fail("bad-input-answer", k.what() + ": no answer (" + e + ")");
                    if (health() != 200) {
                        report.fail("bad-input-alive", "after " + k.what() + " the service no longer answers /health 200");
                        return false;
                    }
                    continue;
                }
                judge(k.what(), r);
                if (r.status() >= 400 && r.status() < 500) answered4xx++;
            }
        }
        return true;
    }

    /** Garbage on fresh sockets: a 4xx (505 to the version probe) or a close; a silence is held open, not an error. */
    private void sendGarbage(List<MalformedRequests.Garbage> garbage) {
        for (MalformedRequests.Garbage g : garbage) {
            int status = sendRaw(g.bytes());
            if (status == 505 && g.versionProbe()) garbage4xx++;
            else if (status >= 500) report.fail("garbage-5xx", g.what() + ": answered " + status);
            else if (status >= 400) garbage4xx++;
            else if (status == -1) closed++;
            else if (status == -2) garbageHeld++;
            else report.fail("garbage-answer", g.what() + ": answered " + status + " (expected a 4xx or a close)");
        }
    }

    /** Healthy, and accepted, the open orders and SALES as before; returns /stats after (null: unusable). */
    private JsonNode checkNothingMoved(SalesTable sales, JsonNode before, long rowsBefore) throws SQLException {
        int health = health();
        JsonNode after = stats();
        long rowsAfter = sales.count();
        report.expect(health == 200, "bad-input-alive", "GET /health answers " + health + " after the phase");
        if (after == null) {
            report.fail("bad-input-alive", "GET /stats unusable after the phase");
            return null;
        }
        long accepted = after.path("accepted").asLong() - before.path("accepted").asLong();
        long market = openPlusPending(after) - openPlusPending(before);
        report.expect(accepted == 0, "bad-input-accepted", "stats accepted grew by " + accepted);
        report.expect(market == 0, "bad-input-market", "openOrders+pendingOrders moved by " + market);
        report.expect(rowsAfter == rowsBefore, "bad-input-sales", "SALES grew from " + rowsBefore + " to " + rowsAfter);
        return after;
    }

    private void reportAndPutFigures(int requests, int garbage) {
        int tried = requests + garbage;
        if (report.failures().isEmpty()) {
            report.ok("bad-input", tried + " malformed inputs: " + answered4xx + " requests answered 4xx with a JSON error, "
                    + garbage + " garbage byte sequences (" + garbage4xx + " answered 4xx (or 505 to HTTP/9.9), " + closed + " closed, "
                    + garbageHeld + " held open without an answer); no 5xx; health 200; accepted +0, open+pending +0, SALES +0");
        }
        figures.put("inputsTried", tried);
        figures.put("requests", requests);
        figures.put("answered4xx", answered4xx);
        figures.put("garbage", garbage);
        figures.put("garbage4xx", garbage4xx);
        figures.put("garbageClosed", closed);
        figures.put("garbageHeld", garbageHeld);
    }

    private SentOrder place(HttpConnection c, boolean buy, String user, int product, int quantity, String price) throws IOException {
        String target = (buy ? "/buy" : "/sell") + "?userId=" + user + "&productId=" + product + "&quantity=" + quantity
                + (price == null ? "" : "&price=" + price);
        HttpResponse r = c.send("POST", target);
        JsonNode j = r.status() == 202 ? JSON.readTree(r.body()) : null;
        if (j == null || j.path("id").asLong(-1) <= 0) {
            report.fail("bad-input-counter", "the counter order " + target + " was not accepted: " + r.status() + " " + r.bodyText());
            return null;
        }
        return new SentOrder(j.path("id").asLong(), buy, user, Integer.toString(product), quantity,
                price == null ? null : new BigDecimal(price), 0, 0);
    }

    private void judge(String what, HttpResponse r) {
        String body = r.bodyText();
        String shown = body.length() > 160 ? body.substring(0, 160) + "..." : body;
        if (r.status() >= 500) {
            report.fail("bad-input-5xx", what + ": " + r.status() + " " + shown);
        } else if (r.status() < 400) {
            report.fail("bad-input-accepted", what + ": " + r.status() + " " + shown);
        } else {
            boolean json = "application/json".equals(r.mediaType());
            JsonNode j = null;
            try {
                j = json ? JSON.readTree(r.body()) : null;
            } catch (IOException e) {
                j = null;
            }
            if (j == null || !j.path("error").isTextual() || j.path("error").asText().isBlank()) {
                report.fail("bad-input-answer", what + ": " + r.status() + " without a JSON {\"error\"}: "
                        + r.header("content-type") + " " + shown);
            }
        }
    }

    /**
     * Raw bytes on a fresh socket, then the write side closed. The status of the
     * first answer; -1 when the server closed without answering, -2 when it said
     * nothing within 3 s (it may wait for more bytes: not an error).
     */
    private int sendRaw(byte[] bytes) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(options.url().getHost(), options.url().getPort()), 5_000);
            s.setSoTimeout(3_000);
            try {
                s.getOutputStream().write(bytes);
                s.getOutputStream().flush();
                s.shutdownOutput();
            } catch (IOException e) {
                // the server closed while we were writing (e.g. a huge header refused early): read what it said
            }
            return firstAnswer(s.getInputStream());
        } catch (IOException e) {
            report.fail("garbage-connect", "cannot connect: " + e);
            return -1;
        }
    }

    /** The status of the answer's first bytes (0: not an HTTP status line); -1 closed, -2 silent, as sendRaw. */
    private static int firstAnswer(InputStream in) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            int n;
            while (got.size() < 64 && (n = in.read(buf)) > 0) got.write(buf, 0, n);
        } catch (SocketTimeoutException e) {
            if (got.size() == 0) return -2;
        } catch (IOException e) {
            if (got.size() == 0) return -1;   // reset: closed
        }
        String head = got.toString(StandardCharsets.ISO_8859_1);
        if (head.isEmpty()) return -1;
        if (!head.startsWith("HTTP/") || head.length() < 12) return 0;
        try {
            return Integer.parseInt(head.substring(9, 12));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
