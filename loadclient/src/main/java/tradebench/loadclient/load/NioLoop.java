package tradebench.loadclient.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import tradebench.loadclient.OrderMix;

/**
 * One event-loop thread driving many connections, the way wrk does: one
 * selector, each connection a small state machine (connect, write, read,
 * pause), and a timer queue for the pauses of the closed loop and the due
 * times of the fixed rate. Fewer threads than connections means fewer context
 * switches per request, which is what the blocking client pays for.
 *
 * <p>Each connection keeps its own histograms (a {@link WorkerFigures}), its
 * own random stream (seed + its index) and the same accounting as a thread
 * worker. Timers fire with millisecond resolution (Selector.select): in the
 * fixed-rate mode a request may leave up to ~1 ms after its due time, and that
 * slack is counted in its latency, as wrk2's is.
 *
 * <p>The view clients ({@code --view-clients}) are connections of the same kind on loops of their own: they send
 * {@code GET /orders/{id}} for ids the orders' 202 answers gave ({@link IdReservoir}), pause uniformly in
 * {@code --view-pause} (or keep {@code --view-rate}), and give up after {@code --view-timeout}. One HTTP reader and
 * one accounting for both kinds: their latencies are measured the same way.
 */
final class NioLoop implements Runnable {

    private static final long TIMEOUT_SCAN_NS = 100_000_000L;

    /** View client i draws from SplittableRandom(seed + VIEW_SEED_OFFSET + i): never an order connection's stream. */
    static final long VIEW_SEED_OFFSET = 1_000_000;
    /** How often a view client looks again for a first accepted order to view. */
    private static final long NO_ID_YET_NS = 10_000_000L;

    private final LoadOptions options;
    private final Timeline timeline;
    /** The ids the orders placed (null when nothing reads them). */
    private final IdReservoir ids;
    private final List<Conn> conns = new ArrayList<>();
    private final PriorityQueue<Conn> timers = new PriorityQueue<>(Comparator.comparingLong(c -> c.wakeNs));
    private Selector selector;
    private int active;
    private long lastTimeoutScan;

    NioLoop(LoadOptions options, Timeline timeline, IdReservoir ids) {
        this.options = options;
        this.timeline = timeline;
        this.ids = ids;
    }

    /** Order connection {@code index}. */
    WorkerFigures add(int index, Progress progress) {
        Conn c = new Conn(RequestType.ORDER, index, progress);
        conns.add(c);
        return c;
    }

    /** View client {@code index}. */
    WorkerFigures addView(int index, Progress progress) {
        Conn c = new Conn(RequestType.VIEW, index, progress);
        conns.add(c);
        return c;
    }

    @Override
    public void run() {
        try (Selector s = Selector.open()) {
            selector = s;
            active = conns.size();
            for (Conn c : conns) {
                c.wakeNs = c.firstWakeNs();
                timers.add(c);
            }
            while (active > 0) {
                long now = System.nanoTime();
                fireTimers(now);
                if (now - lastTimeoutScan > TIMEOUT_SCAN_NS) {
                    scanTimeouts(now);
                    lastTimeoutScan = now;
                }
                if (active == 0) break;
                Conn next = timers.peek();
                long waitNs = next == null ? TIMEOUT_SCAN_NS : Math.min(TIMEOUT_SCAN_NS, next.wakeNs - System.nanoTime());
                if (waitNs <= 0) s.selectNow();
                else s.select(Math.max(1, (waitNs + 999_999) / 1_000_000));
                for (SelectionKey key : s.selectedKeys()) {
                    Conn c = (Conn) key.attachment();
                    if (!key.isValid()) continue;
                    if (key.isConnectable()) c.onConnectable();
                    else if (key.isWritable()) c.onWritable();
                    else if (key.isReadable()) c.onReadable();
                }
                s.selectedKeys().clear();
            }
        } catch (IOException e) {
            throw new IllegalStateException("selector failed", e);
        } finally {
            for (Conn c : conns) c.closeChannel();
        }
    }

    private void fireTimers(long now) {
        Conn c;
        while ((c = timers.peek()) != null && c.wakeNs <= now) {
            timers.poll();
            c.start(now);
        }
    }

    private void scanTimeouts(long now) {
        for (Conn c : conns) {
            if (c.busy && now - c.sentNs > c.timeoutNs) c.timedOut(now);
        }
    }

    /** One connection and its worker's state. */
    private final class Conn extends WorkerFigures {
        private final OrderMix mix;
        private final SplittableRandom random;
        private final boolean view;
        private final boolean fixed;
        final long timeoutNs;
        /** The order being sent (orders only): kept for the order file once its 202 names its id. */
        private OrderMix.Order order;
        /** Connection i talks to base URL i mod n of --url. */
        private final InetSocketAddress address;
        private final byte[] hostLine;
        private final long intervalNs;
        private final long firstDueNs;
        private long nextDueNs;

        private SocketChannel channel;
        private SelectionKey key;
        private ByteBuffer out;
        private byte[] request;
        private ByteBuffer in = ByteBuffer.allocate(4096);
        long wakeNs;
        long sentNs;
        private long dueNs;
        boolean busy;
        private boolean reused;
        private boolean retried;
        private boolean finished;
        // parse state of the answer being read
        private int headEnd;
        private int status;
        private long contentLength;
        private boolean chunked;
        private boolean closeAfter;

        Conn(RequestType type, int index, Progress progress) {
            super(type, NioLoop.this.options, NioLoop.this.timeline, progress);
            this.view = type == RequestType.VIEW;
            this.fixed = fixedRate();
            this.mix = view ? null : new OrderMix(options.products(), options.users(), options.userPrefix());
            this.random = new SplittableRandom(options.seed() + (view ? VIEW_SEED_OFFSET : 0) + index);
            this.timeoutNs = (view ? options.viewTimeoutMs() : options.timeoutMs()) * 1_000_000L;
            java.net.URI url = options.url(index);
            int port = url.getPort() > 0 ? url.getPort() : 80;
            this.address = new InetSocketAddress(url.getHost(), port);
            this.hostLine = ("Host: " + url.getHost() + ":" + port + (view ? "" : "\r\nContent-Length: 0") + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1);
            int count = view ? options.viewClients() : options.concurrency();
            if (fixed) {
                intervalNs = (long) (count * 1e9 / (view ? options.viewRate() : options.rate()));
                // Spread the connections over one interval so they do not all fire at once.
                firstDueNs = timeline.startNs() + intervalNs * index / count;
            } else {
                intervalNs = 0;
                // View clients start spread over one pause, as they would be after their first answers.
                firstDueNs = timeline.startNs() + (view ? pauseMs() * 1_000_000L : 0);
            }
            nextDueNs = firstDueNs;
        }

        /** The pause after an answer: {@code --wait} for orders, uniform in {@code --view-pause} for views. */
        private long pauseMs() {
            if (!view) return options.waitMs();
            return options.viewPauseMinMs() + random.nextInt(options.viewPauseMaxMs() - options.viewPauseMinMs() + 1);
        }

        long firstWakeNs() {
            return firstDueNs;
        }

        /** The timer fired: send the next order, or stop. */
        void start(long now) {
            if (fixed) {
                if (nextDueNs >= timeline.measureEndNs()) {
                    finish();
                    return;
                }
                if (now >= timeline.giveUpNs()) {
                    countNotSent(nextDueNs, intervalNs);
                    finish();
                    return;
                }
            } else if (now >= timeline.measureEndNs()) {
                finish();
                return;
            }
            if (view) {
                long id = ids.pick(random);
                if (id == 0) {
                    waitForFirstOrder(now);
                    return;
                }
                request = viewBytes(id);
            } else {
                order = mix.next(random);
                request = requestBytes(order);
            }
            if (fixed) {
                dueNs = nextDueNs;
                nextDueNs += intervalNs;
            } else {
                dueNs = now;
            }
            sentNs = now;
            busy = true;
            retried = false;
            send();
        }

        /** No order accepted yet: nothing is sent or counted (a fixed rate's due time passes unsent). */
        private void waitForFirstOrder(long now) {
            if (fixed) nextDueNs += intervalNs;
            wakeNs = fixed ? nextDueNs : now + NO_ID_YET_NS;
            timers.add(this);
        }

        private byte[] viewBytes(long id) {
            byte[] line = ("GET /orders/" + id + " HTTP/1.1\r\n").getBytes(StandardCharsets.ISO_8859_1);
            byte[] all = new byte[line.length + hostLine.length];
            System.arraycopy(line, 0, all, 0, line.length);
            System.arraycopy(hostLine, 0, all, line.length, hostLine.length);
            return all;
        }

        private byte[] requestBytes(OrderMix.Order order) {
            byte[] line = ("POST " + order.target() + " HTTP/1.1\r\n").getBytes(StandardCharsets.ISO_8859_1);
            byte[] all = new byte[line.length + hostLine.length];
            System.arraycopy(line, 0, all, 0, line.length);
            System.arraycopy(hostLine, 0, all, line.length, hostLine.length);
            return all;
        }

        private void send() {
            in.clear();
            headEnd = -1;
            out = ByteBuffer.wrap(request);
            try {
                if (channel == null) {
                    channel = SocketChannel.open();
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    reused = false;
                    key = channel.register(selector, 0, this);
                    if (!channel.connect(address)) {
                        key.interestOps(SelectionKey.OP_CONNECT);
                        return;
                    }
                }
                write();
            } catch (IOException e) {
                fail(System.nanoTime());
            }
        }

        void onConnectable() {
            try {
                if (channel.finishConnect()) write();
            } catch (IOException e) {
                fail(System.nanoTime());
            }
        }

        void onWritable() {
            try {
                write();
            } catch (IOException e) {
                staleOrFail();
            }
        }

        private void write() throws IOException {
            channel.write(out);
            key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        void onReadable() {
            int n;
            try {
                if (!in.hasRemaining()) {
                    ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 2);
                    in.flip();
                    bigger.put(in);
                    in = bigger;
                }
                n = channel.read(in);
            } catch (IOException e) {
                staleOrFail();
                return;
            }
            if (n < 0) {
                if (headEnd >= 0 && contentLength < 0 && !chunked) complete(System.nanoTime());   // body ran to EOF
                else staleOrFail();
                return;
            }
            if (parse()) complete(System.nanoTime());
        }

        /** Whether the whole answer is in. */
        private boolean parse() {
            byte[] b = in.array();
            int lim = in.position();
            if (headEnd < 0) {
                for (int i = 0; i + 3 < lim; i++) {
                    if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                        headEnd = i;
                        break;
                    }
                }
                if (headEnd < 0) return false;
                parseHead(b);
            }
            int bodyStart = headEnd + 4;
            if (status == 204 || status == 304 || status / 100 == 1) return true;
            if (chunked) {
                // The answer ends with the last chunk "0\r\n\r\n" (the variants send no trailers).
                return lim - bodyStart >= 5 && b[lim - 5] == '0' && b[lim - 4] == '\r' && b[lim - 3] == '\n'
                        && b[lim - 2] == '\r' && b[lim - 1] == '\n' && (lim - 5 == bodyStart || b[lim - 6] == '\n');
            }
            if (contentLength >= 0) return lim - bodyStart >= contentLength;
            closeAfter = true;
            return false;   // to the end of the connection
        }

        private void parseHead(byte[] b) {
            int sp = 0;
            while (sp < headEnd && b[sp] != ' ') sp++;
            status = sp + 3 < headEnd ? (b[sp + 1] - '0') * 100 + (b[sp + 2] - '0') * 10 + (b[sp + 3] - '0') : 0;
            contentLength = -1;
            chunked = false;
            closeAfter = headEnd > 7 && b[7] == '0';   // HTTP/1.0
            // Byte-level scan of the header lines: no Strings on the hot path.
            int line = 0;
            while (line < headEnd && b[line] != '\r') line++;
            line += 2;
            while (line < headEnd) {
                int eol = line;
                while (eol < headEnd && b[eol] != '\r') eol++;
                int colon = line;
                while (colon < eol && b[colon] != ':') colon++;
                if (colon < eol) header(b, line, colon, eol);
                line = eol + 2;
            }
        }

        private void header(byte[] b, int name, int colon, int eol) {
            int vs = colon + 1;
            while (vs < eol && (b[vs] == ' ' || b[vs] == '\t')) vs++;
            int length = colon - name;
            if (length == 14 && nameIs(b, name, "content-length")) {
                long n = 0;
                for (int i = vs; i < eol && b[i] >= '0' && b[i] <= '9'; i++) n = n * 10 + (b[i] - '0');
                contentLength = n;
            } else if (length == 17 && nameIs(b, name, "transfer-encoding")) {
                chunked = new String(b, vs, eol - vs, StandardCharsets.ISO_8859_1).toLowerCase().contains("chunked");
            } else if (length == 10 && nameIs(b, name, "connection")) {
                String v = new String(b, vs, eol - vs, StandardCharsets.ISO_8859_1).toLowerCase();
                if (v.contains("close")) closeAfter = true;
                else if (v.contains("keep-alive")) closeAfter = false;
            }
        }

        private static boolean nameIs(byte[] b, int start, String lower) {
            for (int i = 0; i < lower.length(); i++) {
                int c = b[start + i];
                if (c >= 'A' && c <= 'Z') c += 32;
                if (c != lower.charAt(i)) return false;
            }
            return true;
        }

        private void complete(long now) {
            busy = false;
            record(dueNs, sentNs, now, status);
            if (!view && status == 202 && options.needsOrderIds()) {
                placed(idOf(in.array(), headEnd + 4, in.position()), ids, order, sentNs, now);
            }
            if (closeAfter) closeChannel();
            else {
                reused = true;
                key.interestOps(0);
            }
            schedule(now, pauseMs());
        }

        /**
         * A kept-alive connection the server had closed while idle fails before
         * any byte of an answer: the server never saw the request, so it goes out
         * once more on a new connection. Anything else is an I/O error.
         */
        private void staleOrFail() {
            if (reused && !retried && headEnd < 0 && in.position() == 0) {
                retried = true;
                closeChannel();
                send();
                return;
            }
            fail(System.nanoTime());
        }

        void fail(long now) {
            failWith(now, StatusCounts.IO_ERROR);
        }

        /** No answer within the time-out: the connection is replaced (a late answer must not pass for the next one's). */
        void timedOut(long now) {
            failWith(now, StatusCounts.CLIENT_TIMEOUT);
        }

        private void failWith(long now, int kind) {
            busy = false;
            closeChannel();
            record(dueNs, sentNs, now, kind);
            // A refused connection fails in microseconds: without a floor, --wait 0 would spin on it.
            schedule(now, Math.max(pauseMs(), 10));
        }

        private void schedule(long now, long pauseMs) {
            wakeNs = fixed ? nextDueNs : now + pauseMs * 1_000_000L;
            timers.add(this);
        }

        private void finish() {
            if (finished) return;
            finished = true;
            active--;
            closeChannel();
        }

        void closeChannel() {
            if (channel == null) return;
            try {
                if (key != null) key.cancel();
                channel.close();
            } catch (IOException ignored) {
                // best effort
            }
            channel = null;
            key = null;
        }
    }
}
