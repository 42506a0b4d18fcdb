package tradebench.loadclient.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * Database outage: load plus a /health probe every 200 ms while the launcher
 * stops the database for 10 s and starts it again (it says {@code db-back <ms>}
 * on the load client's stdin when the database answers again, {@link DbEvents}); the load goes on
 * 4 s after that ({@code --duration}: at most). /health must say
 * 503 meanwhile and 200 after, every order answer is a 202 or a 503, the
 * service never stops answering, and trading resumes. Then the audit over
 * everything accepted (these orders and the earlier phases', {@code --orders}).
 */
final class OutagePhase extends Phase {

    /** One /health probe: ms since the start, status (-1: no answer within 10 s), how long the answer took. */
    record Probe(long atMs, int status, String body, long tookMs) {}

    private static final long AFTER_BACK_MS = 4_000;
    private static final long HEALTHY_AGAIN_WITHIN_MS = 30_000;

    private final DbEvents events;
    private final List<Probe> probes = new ArrayList<>();
    private LoadDriver load;
    /** Wall-clock ms of the phase's start: the probes' and the events' times are counted from it. */
    private long t0;
    /** ms since the start: the database back, as the launcher said; the first 503 of /health; its first 200 after. */
    private long backAt = -1;
    private long firstDown = -1;
    private long healthyAt = -1;

    OutagePhase(RelOptions options, PrintStream out, DbEvents events) {
        super(options, out);
        this.events = events;
    }

    @Override
    void run() throws Exception {
        load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        t0 = System.currentTimeMillis();
        Thread runner = load.closedLoopInBackground(options.connections(), options.waitMs(), options.duration());
        probeUntilAfterTheReturn();
        load.stop();
        runner.join();
        probeUntilHealthy();
        OrderLog.write(options.ordersOut(), load.orders);
        out.println("load: " + load.summary());
        judgeTheProbes();
        long acceptedAfter = checkTheAnswersAndTheResumption();
        long salesAfter = auditAndCountTheSalesAfterTheReturn();
        report.expect(salesAfter > 0, "outage-resume", "no sale stored after the database came back");
        reportAndPutFigures(acceptedAfter, salesAfter);
    }

    /** /health every 200 ms while the load runs: until {@value #AFTER_BACK_MS} ms after the database is back, at most --duration. */
    private void probeUntilAfterTheReturn() {
        long end = t0 + (long) (options.duration() * 1000);
        while (System.currentTimeMillis() < end) {
            probes.add(probe(t0));
            if (backAt < 0 && events.at(DbEvents.BACK) >= 0) {
                backAt = events.at(DbEvents.BACK) - t0;
                end = Math.min(end, System.currentTimeMillis() + AFTER_BACK_MS);
            }
            LoadDriver.sleepMs(200);
        }
    }

    /** After the load: until /health is 200 again, {@value #HEALTHY_AGAIN_WITHIN_MS} ms at most. */
    private void probeUntilHealthy() {
        long deadline = System.currentTimeMillis() + HEALTHY_AGAIN_WITHIN_MS;
        while (System.currentTimeMillis() < deadline) {
            Probe p = probe(t0);
            probes.add(p);
            if (p.status() == 200 && backAt >= 0) break;
            LoadDriver.sleepMs(200);
        }
    }

    /** Finds the first 503 and the first 200 after the return; each answer judged. */
    private void judgeTheProbes() {
        for (Probe p : probes) {
            if (p.status() == 503 && firstDown < 0) firstDown = p.atMs();
            if (p.status() == 200 && backAt >= 0 && p.atMs() >= backAt && healthyAt < 0) healthyAt = p.atMs();
            judge(p);
        }
    }

    /** 200, or 503 {"status": "down"}. */
    private void judge(Probe p) {
        if (p.status() != 200 && p.status() != 503) {
            report.fail("outage-health", "GET /health at +" + p.atMs() + " ms: " + (p.status() < 0 ? "no answer" : p.status())
                    + " " + p.body());
        } else if (p.status() == 503 && !p.body().contains("\"down\"")) {
            report.fail("outage-health", "503 without {\"status\": \"down\"}: " + p.body());
        }
    }

    /** Returns the orders accepted from the second the database came back. */
    private long checkTheAnswersAndTheResumption() {
        report.expect(backAt >= 0, "outage-db-back", "the launcher never said " + DbEvents.BACK + " on stdin");
        report.expect(events.malformed().isEmpty(), "db-events", "lines on stdin that say no database event: " + events.malformed());
        report.expect(firstDown >= 0, "outage-health", "GET /health never answered 503 while the database was stopped");
        report.expect(healthyAt >= 0, "outage-health", "GET /health not 200 again after the database came back");
        checkLoadAnswers(load);
        int backSec = backAt < 0 ? LoadDriver.SECONDS : (int) (backAt / 1000) + 1;
        long acceptedAfter = LoadDriver.total(load.accepted, backSec, LoadDriver.SECONDS);
        report.expect(acceptedAfter > 0, "outage-resume", "no order accepted after the database came back");
        return acceptedAfter;
    }

    /**
     * Once quiet: the audit over everything accepted so far, the earlier phases' orders ({@code --orders}) and
     * these. Returns the sales stored since the database came back.
     */
    private long auditAndCountTheSalesAfterTheReturn() throws Exception {
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            waitQuiet(sales, true);
            long backWall = t0 + Math.max(0, backAt);
            long salesAfter = sales.all().stream().filter(r -> r.created() >= backWall).count();
            List<SentOrder> everything = new ArrayList<>(load.orders);
            for (String f : options.orderFiles()) everything.addAll(OrderLog.read(f));
            figures.put("salesChecked", audit(everything, sales).size());
            return salesAfter;
        }
    }

    private void reportAndPutFigures(long acceptedAfter, long salesAfter) {
        long slowest = probes.stream().mapToLong(Probe::tookMs).max().orElse(0);
        figures.put("healthProbes", probes.size());
        figures.put("healthSlowestMs", slowest);
        long downMs = firstDown >= 0 && healthyAt >= 0 ? healthyAt - firstDown : -1;
        long recoveryMs = healthyAt >= 0 && backAt >= 0 ? healthyAt - backAt : -1;
        if (report.failures().isEmpty()) {
            report.ok("outage", "/health 503 from +" + firstDown + " ms for " + downMs + " ms; database back at +" + backAt
                    + " ms, /health 200 " + recoveryMs + " ms later; " + load.total(load.overloaded) + " orders answered 503, "
                    + acceptedAfter + " accepted and " + salesAfter + " sales stored after it came back; slowest /health "
                    + slowest + " ms");
        }
        figures.put("healthDownMs", downMs);
        figures.put("recoveryMs", recoveryMs);
        figures.put("accepted", load.total(load.accepted));
        figures.put("overloaded", load.total(load.overloaded));
        figures.put("ioErrors", load.ioErrors.get());
        figures.put("salesAfterBack", salesAfter);
    }

    private Probe probe(long t0) {
        long at = System.currentTimeMillis() - t0;
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            HttpResponse r = c.send("GET", "/health");
            return new Probe(at, r.status(), r.bodyText(), System.currentTimeMillis() - t0 - at);
        } catch (IOException e) {
            return new Probe(at, -1, e.toString(), System.currentTimeMillis() - t0 - at);
        }
    }
}
