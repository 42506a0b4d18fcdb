package tradebench.loadclient.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * Database crash: a closed-loop load while the launcher kills the database
 * server with SIGKILL (no shutdown: InnoDB recovers from its redo log when it
 * starts again) and starts it 10 s later. The launcher says so on the load
 * client's stdin ({@link DbEvents}): {@code db-killed <ms>} at the kill and,
 * once the server accepts connections again, {@code db-back <ms>}.
 * <ul>
 * <li>every order answer is a 202 or a well-formed 503 within {@code --request-timeout}
 *     ms: no order hangs, none is refused another way, the service never stops answering;</li>
 * <li>full rate again: the sales stored per second before the kill (the 2 s before it) are
 *     the reference; from the database's return, the first whole second (sliding by 100 ms)
 *     in which at least {@value #FULL_RATE} of that rate was stored must end within
 *     {@code --recovery} s. The variant is never restarted (the launcher checks its process);</li>
 * <li>once quiet: {@code /stats} {@code salesPersisted} = the rows of SALES (every sale the
 *     service counted as stored survived the crash, the suite's database holds only this
 *     process's sales), the audit over everything accepted so far (no (PO, SO) pair twice,
 *     no order over-filled ...), no product of this phase left with an open buy and an
 *     open sell that could trade, and {@code /orders/{id}} of accepted orders, those of the
 *     outage first, agrees with SALES ({@code filled} with nothing remaining, otherwise
 *     {@code open} or {@code timed_out} with the quantity less its stored fills).</li>
 * </ul>
 */
final class DbCrashPhase extends Phase {

    static final double FULL_RATE = 0.8;
    private static final long REFERENCE_MS = 2_000;
    private static final int VIEWS = 200;

    private final DbEvents events;
    private LoadDriver load;
    /** Wall-clock ms of the kill and of the database's return, as the launcher said them; -1: never said. */
    private long killedAt = -1;
    private long backAt = -1;
    /** Sales stored per second in the {@value #REFERENCE_MS} ms before the kill; -1: not measured. */
    private double reference = -1;
    /** ms from the database's return to the end of the first second at full rate; -1: none within --recovery. */
    private long fullRateMs = -1;
    /** Sales stored in each whole second from the database's return, "n, n, ...". */
    private String perSecond = "";

    DbCrashPhase(RelOptions options, PrintStream out, DbEvents events) {
        super(options, out);
        this.events = events;
    }

    @Override
    void run() throws Exception {
        load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed())
                .requestTimeout(options.requestTimeoutMs());
        Thread runner = load.closedLoopInBackground(options.connections(), options.waitMs(), options.duration());
        SalesTable sales = null;
        try {
            sales = watchTheCrash();
        } finally {
            load.stop();
            runner.join();
            OrderLog.write(options.ordersOut(), load.orders);
        }
        try (SalesTable table = sales) { // closed however the checks end (null: the database never came back)
            out.println("load: " + load.summary() + "; slowest answer " + load.slowestMs.get() + " ms");
            checkTheAnswersAndTheRate();
            if (table == null) return;
            waitQuiet(table, true);
            List<SalesTable.Row> rows = auditEverythingAccepted(table);
            long counted = checkEveryCountedSaleStored(rows);
            printTheTimeline(table);
            lastAudit.checkNoCrossedProducts(load.orders);
            checkViews(rows);
            reportAndPutFigures(rows, counted);
        }
    }

    /**
     * Waits for the launcher's kill and the database's return, then measures the rate before the kill and the
     * time to full rate after the return. Returns the table, opened once the server is back (a connection
     * opened before died with it); null when the launcher never said both.
     */
    private SalesTable watchTheCrash() throws Exception {
        long end = load.startMs + (long) (options.duration() * 1000);
        killedAt = events.await(DbEvents.KILLED, end);
        backAt = killedAt < 0 ? -1 : events.await(DbEvents.BACK, end);
        if (backAt < 0) return null;
        SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable());
        measureTheReferenceRate(sales);
        findTheFirstSecondAtFullRate(sales);
        return sales;
    }

    /** CREATED is the service's clock, on this machine; the sales before the kill are counted as they survived it. */
    private void measureTheReferenceRate(SalesTable sales) throws SQLException {
        long from = Math.max(load.startMs, killedAt - REFERENCE_MS);
        reference = sales.countCreated(from, killedAt) * 1000.0 / Math.max(1, killedAt - from);
    }

    /** Whole seconds from the return, sliding by 100 ms, each read 200 ms after its end (the last inserts landed). */
    private void findTheFirstSecondAtFullRate(SalesTable sales) throws SQLException {
        long limit = backAt + (long) (options.recovery() * 1000);
        for (long w = backAt; fullRateMs < 0 && w + 1000 <= limit; w += 100) {
            while (System.currentTimeMillis() < w + 1000 + 200) LoadDriver.sleepMs(20);
            long stored = sales.countCreated(w, w + 1000);
            if ((w - backAt) % 1000 == 0) perSecond += (perSecond.isEmpty() ? "" : ", ") + stored;
            if (stored >= FULL_RATE * reference && stored > 0) fullRateMs = w + 1000 - backAt;
        }
    }

    private void checkTheAnswersAndTheRate() {
        report.expect(killedAt >= 0, "dbcrash-killed", "the launcher never said " + DbEvents.KILLED + " on stdin");
        report.expect(backAt >= 0, "dbcrash-back", "the launcher never said " + DbEvents.BACK + " on stdin");
        report.expect(events.malformed().isEmpty(), "db-events", "lines on stdin that say no database event: " + events.malformed());
        report.expect(load.timeouts.get() == 0, "dbcrash-hang", load.timeouts.get() + " orders without an answer within "
                + options.requestTimeoutMs() + " ms: " + load.problems);
        report.expect(load.ioErrors.get() == 0, "load-answers", load.ioErrors.get() + " orders without an answer: " + load.problems);
        checkLoadAnswers(load);
        report.expect(reference > 0, "dbcrash-rate", "no sale stored in the " + REFERENCE_MS + " ms before the kill");
        report.expect(fullRateMs > 0, "dbcrash-full-rate", String.format("no second at %.0f %% of the %.0f sales/s before"
                + " the crash within %.0f s of the database's return; per second from it: %s", FULL_RATE * 100, reference,
                options.recovery(), perSecond));
    }

    /** The audit over this phase's orders and the earlier phases' ({@code --orders}); returns the rows checked. */
    private List<SalesTable.Row> auditEverythingAccepted(SalesTable table) throws Exception {
        List<SentOrder> everything = new ArrayList<>(load.orders);
        for (String f : options.orderFiles()) everything.addAll(OrderLog.read(f));
        return audit(everything, table);
    }

    /** {@code /stats} salesPersisted against the rows of SALES; returns the service's count (-1: no /stats). */
    private long checkEveryCountedSaleStored(List<SalesTable.Row> rows) {
        JsonNode stats = stats();
        long counted = stats == null ? -1 : stats.path("salesPersisted").asLong(-1);
        if (report.expect(counted == rows.size(), "dbcrash-stored", "/stats salesPersisted=" + counted + ", SALES holds "
                + rows.size() + " rows")) {
            report.ok("dbcrash-stored", "the " + counted + " sales the service counted as stored are all in SALES, each once");
        }
        return counted;
    }

    private void printTheTimeline(SalesTable table) throws SQLException {
        StringBuilder timeline = new StringBuilder();
        for (long t = load.startMs; t < System.currentTimeMillis() - 1000; t += 1000) {
            timeline.append(timeline.isEmpty() ? "" : ", ").append(table.countCreated(t, t + 1000));
        }
        out.println("sales stored per second since the load started (the kill at +" + (killedAt - load.startMs)
                + " ms, back at +" + (backAt - load.startMs) + " ms): " + timeline);
        figures.put("salesPerSecond", timeline.toString());
    }

    private void reportAndPutFigures(List<SalesTable.Row> rows, long counted) {
        int killSec = (int) ((killedAt - load.startMs) / 1000);
        int backSec = (int) ((backAt - load.startMs) / 1000) + 1;
        long refused = LoadDriver.total(load.overloaded, killSec, backSec);
        long acceptedDown = load.orders.stream().filter(this::inOutage).count();
        if (report.failures().isEmpty()) {
            report.ok("dbcrash", String.format("SIGKILL of the database at +%d ms, back at +%d ms; full rate (>= %.0f %% of"
                    + " %.0f sales/s) %d ms after it was back; %d orders answered 503 and %d accepted while it was away;"
                    + " slowest order answer %d ms; %d sales checked", killedAt - load.startMs, backAt - load.startMs,
                    FULL_RATE * 100, reference, fullRateMs, refused, acceptedDown, load.slowestMs.get(), rows.size()));
        }
        figures.put("killedAtMs", killedAt - load.startMs);
        figures.put("downMs", backAt - killedAt);
        figures.put("referenceSalesPerS", Math.round(reference));
        figures.put("fullRateMs", fullRateMs);
        figures.put("perSecondAfterBack", perSecond);
        figures.put("served503Down", refused);
        figures.put("acceptedDown", acceptedDown);
        figures.put("slowestOrderMs", load.slowestMs.get());
        figures.put("accepted", load.total(load.accepted));
        figures.put("salesChecked", rows.size());
        figures.put("salesPersisted", counted);
    }

    /** Sent while the database was away: after the kill, before its return. */
    private boolean inOutage(SentOrder o) {
        Long t = load.sentWallMs.get(o.id());
        return t != null && t >= killedAt && t < backAt;
    }

    /**
     * /orders/{id} of accepted orders against SALES: those accepted while the database was away first (a 202 then
     * must be honoured like any other), then others, {@value #VIEWS} in all.
     */
    private void checkViews(List<SalesTable.Row> rows) {
        Map<Long, Long> filled = filledById(rows);
        List<SentOrder> down = new ArrayList<>(), others = new ArrayList<>();
        for (SentOrder o : load.orders) (inOutage(o) ? down : others).add(o);
        Collections.shuffle(down, new Random(options.seed()));
        Collections.shuffle(others, new Random(options.seed()));
        List<SentOrder> sample = new ArrayList<>(down.subList(0, Math.min(VIEWS / 2, down.size())));
        sample.addAll(others.subList(0, Math.min(VIEWS - sample.size(), others.size())));
        int before = report.failures().size();
        int traded = 0;
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            for (SentOrder o : sample) {
                long remaining = o.quantity() - filled.getOrDefault(o.id(), 0L);
                checkView(c, o, remaining);
                if (remaining < o.quantity()) traded++;
            }
        } catch (IOException e) {
            report.fail("dbcrash-order-view", "GET /orders/{id}: " + e);
        }
        if (report.failures().size() == before) {
            report.ok("dbcrash-order-view", sample.size() + " accepted orders (" + Math.min(VIEWS / 2, down.size())
                    + " of them accepted while the database was away; " + traded + " traded): /orders/{id} agrees with SALES");
        }
    }

    /** The quantity each order traded by the rows of SALES. */
    private static Map<Long, Long> filledById(List<SalesTable.Row> rows) {
        Map<Long, Long> filled = new HashMap<>();
        for (SalesTable.Row r : rows) {
            filled.merge(r.poId(), (long) r.quantity(), Long::sum);
            if (r.soId() != r.poId()) filled.merge(r.soId(), (long) r.quantity(), Long::sum);
        }
        return filled;
    }

    /** {@code filled} with nothing remaining, otherwise {@code open} or {@code timed_out}, with SALES's remainder. */
    private void checkView(HttpConnection c, SentOrder o, long remaining) throws IOException {
        HttpResponse r = c.send("GET", "/orders/" + o.id());
        JsonNode j = r.status() == 200 ? JSON.readTree(r.body()) : null;
        String status = j == null ? "" : j.path("status").asText();
        boolean ok = j != null && j.path("remaining").asLong(-1) == remaining
                && (remaining == 0 ? status.equals("filled") : status.equals("open") || status.equals("timed_out"));
        if (!ok) {
            report.fail("dbcrash-order-view", "GET /orders/" + o.id() + " (" + remaining + " of " + o.quantity()
                    + " left by SALES): " + r.status() + " " + r.bodyText());
        }
    }
}
