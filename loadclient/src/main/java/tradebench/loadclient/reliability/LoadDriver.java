package tradebench.loadclient.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import tradebench.loadclient.OrderMix;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * The suite's load: the orders of contract section 6 ({@link OrderMix}) on blocking keep-alive
 * connections ({@link HttpConnection}), one virtual thread each, either as a
 * closed loop (pause after each answer) or at a fixed rate (connection i of C
 * owns the due times start + i/R + k*C/R). Unlike {@code load} it keeps every
 * accepted order (id, side, user, product, quantity, price) for the audit, and
 * counts answers per second since its start.
 */
final class LoadDriver {

    static final int SECONDS = 600;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Answers per second since the start; index = second. */
    final AtomicLongArray sent = new AtomicLongArray(SECONDS);
    final AtomicLongArray accepted = new AtomicLongArray(SECONDS);
    final AtomicLongArray overloaded = new AtomicLongArray(SECONDS);
    final AtomicLong other4xx = new AtomicLong();
    final AtomicLong other5xx = new AtomicLong();
    final AtomicLong ioErrors = new AtomicLong();
    final AtomicLong bad503 = new AtomicLong();
    final AtomicLong bad202 = new AtomicLong();
    /** Orders whose answer did not come within the request timeout ({@link #requestTimeoutMs}). */
    final AtomicLong timeouts = new AtomicLong();
    /** The longest time an order waited for its answer (or for its failure), ms. */
    final AtomicLong slowestMs = new AtomicLong();
    final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    final List<SentOrder> orders = Collections.synchronizedList(new ArrayList<>());
    /** Wall-clock ms at which each accepted order was sent, parallel to nothing: kept in {@link #sentWallMs}. */
    final java.util.Map<Long, Long> sentWallMs = new java.util.concurrent.ConcurrentHashMap<>();

    private final URI url;
    private final OrderMix mix;
    private final long seed;
    final long startNs = System.nanoTime();
    final long startMs = System.currentTimeMillis();
    private volatile boolean stop;
    private int requestTimeoutMs = 30_000;

    LoadDriver(URI url, int products, String prefix, long seed) {
        this.url = url;
        this.mix = new OrderMix(products, 50, prefix);
        this.seed = seed;
    }

    /** How long an order may wait for its answer; longer is a timeout (an I/O error, counted in {@link #timeouts}). */
    LoadDriver requestTimeout(int ms) {
        this.requestTimeoutMs = ms;
        return this;
    }

    /** Closed loop for {@code seconds}: each connection sends, reads, pauses {@code waitMs}. Blocks until done. */
    void closedLoop(int connections, int waitMs, double seconds) throws InterruptedException {
        closedLoop(connections, waitMs, Math.max(waitMs, 10), seconds);
    }

    /** {@link #closedLoop(int, int, double)} on a thread of its own, for a phase that acts while the load runs. */
    Thread closedLoopInBackground(int connections, int waitMs, double seconds) {
        return Thread.ofPlatform().start(() -> {
            try {
                closedLoop(connections, waitMs, seconds);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Closed loop with its own pause after a 503 (the saturating loop: no pause after a 202, a short one after a 503). */
    void closedLoop(int connections, int waitMs, int waitAfter503Ms, double seconds) throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SplittableRandom rnd = new SplittableRandom(seed * 7919 + i + startNs);
            threads.add(Thread.ofVirtual().start(() -> {
                try (HttpConnection c = new HttpConnection(url, requestTimeoutMs)) {
                    while (!stop && System.nanoTime() < end) {
                        int status = sendOne(c, rnd);
                        sleepMs(status == 202 ? waitMs : status == 503 ? waitAfter503Ms : Math.max(waitMs, 10));
                    }
                }
            }));
        }
        for (Thread t : threads) t.join();
    }

    /** Fixed rate R over {@code connections} for {@code seconds}; a connection behind schedule sends at once. */
    void fixedRate(int connections, double rate, double seconds) throws InterruptedException {
        long t0 = System.nanoTime();
        long end = t0 + (long) (seconds * 1e9);
        double stepNs = 1e9 * connections / rate;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            int worker = i;
            SplittableRandom rnd = new SplittableRandom(seed * 7919 + i + startNs);
            threads.add(Thread.ofVirtual().start(() -> {
                try (HttpConnection c = new HttpConnection(url, requestTimeoutMs)) {
                    for (long k = 0; !stop; k++) {
                        long due = t0 + (long) (worker * 1e9 / rate + k * stepNs);
                        if (due >= end) break;
                        long now = System.nanoTime();
                        if (due > now) sleepNs(due - now);
                        sendOne(c, rnd);
                    }
                }
            }));
        }
        for (Thread t : threads) t.join();
    }

    void stop() {
        stop = true;
    }

    int second(long nanoTime) {
        return (int) Math.min(SECONDS - 1, Math.max(0, (nanoTime - startNs) / 1_000_000_000L));
    }

    /** One order; its status, -1 when the connection failed (the caller pauses a little longer). */
    private int sendOne(HttpConnection c, SplittableRandom rnd) {
        OrderMix.Order o = mix.next(rnd);
        long wall = System.currentTimeMillis();
        long t0 = System.nanoTime();
        int sec = second(t0);
        sent.incrementAndGet(sec);
        HttpResponse r;
        try {
            r = c.send("POST", o.target());
        } catch (IOException e) {
            slowestMs.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
            if (e instanceof java.net.SocketTimeoutException) timeouts.incrementAndGet();
            ioErrors.incrementAndGet();
            problem("POST " + o.target() + " -> " + e);
            c.close();
            return -1;
        }
        long t1 = System.nanoTime();
        slowestMs.accumulateAndGet((t1 - t0) / 1_000_000, Math::max);
        int status = r.status();
        if (status == 202) {
            accepted.incrementAndGet(sec);
            try {
                JsonNode j = JSON.readTree(r.body());
                long id = j.path("id").asLong(-1);
                if (id <= 0 || !"accepted".equals(j.path("status").asText())) throw new IOException("no id");
                SentOrder s = new SentOrder(id, o.buy(), o.userId(), Integer.toString(o.productId()), o.quantity(),
                        o.priceCents() < 0 ? null : new BigDecimal(OrderMix.formatCents(o.priceCents())), t0, t1);
                orders.add(s);
                sentWallMs.put(id, wall);
            } catch (IOException e) {
                bad202.incrementAndGet();
                problem("202 without {\"id\": N, \"status\": \"accepted\"}: " + r.bodyText());
            }
        } else if (status == 503) {
            overloaded.incrementAndGet(sec);
            String body = r.bodyText();
            if (r.header("retry-after") == null || !"application/json".equals(r.mediaType()) || !body.contains("\"error\"")) {
                bad503.incrementAndGet();
                problem("503 without Retry-After or JSON {\"error\"}: " + r.headers() + " " + body);
            }
        } else if (status >= 500) {
            other5xx.incrementAndGet();
            problem("POST " + o.target() + " -> " + status + " " + r.bodyText());
        } else {
            other4xx.incrementAndGet();
            problem("POST " + o.target() + " -> " + status + " " + r.bodyText());
        }
        return status;
    }

    private void problem(String p) {
        if (problems.size() < 20) problems.add(p);
    }

    long total(AtomicLongArray a) {
        return total(a, 0, SECONDS);
    }

    /** Sum of a per-second counter over seconds [from, to). */
    static long total(AtomicLongArray a, int from, int to) {
        long n = 0;
        for (int i = Math.max(0, from); i < Math.min(a.length(), to); i++) n += a.get(i);
        return n;
    }

    /** Orders the variant must never have answered this way (anything but 202/503). */
    long unexpected() {
        return other4xx.get() + other5xx.get() + bad202.get();
    }

    String summary() {
        return String.format("sent %d, 202 %d, 503 %d, other 4xx %d, 5xx %d, I/O errors %d", total(sent), total(accepted),
                total(overloaded), other4xx.get(), other5xx.get(), ioErrors.get());
    }

    static void sleepMs(long ms) {
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepNs(long ns) {
        try {
            Thread.sleep(ns / 1_000_000, (int) (ns % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
