package tradebench.loadclient.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;
import tradebench.loadclient.verify.SalesTable;
import tradebench.loadclient.verify.SentOrder;

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

    private final DbEvents events;

    OutagePhase(RelOptions options, PrintStream out, DbEvents events) {
        super(options, out);
        this.events = events;
    }

    @Override
    void run() throws Exception {
        double duration = options.duration();
        LoadDriver load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        List<Probe> probes = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.currentTimeMillis();
        long[] backAt = {-1};
        Thread runner = Thread.ofPlatform().start(() -> {
            try {
                load.closedLoop(options.connections(), options.waitMs(), duration);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // the load runs until AFTER_BACK_MS after the database is back (at most --duration s)
        long end = t0 + (long) (duration * 1000);
        while (System.currentTimeMillis() < end) {
            probes.add(probe(t0));
            if (backAt[0] < 0 && events.at(DbEvents.BACK) >= 0) {
                backAt[0] = events.at(DbEvents.BACK) - t0;
                end = Math.min(end, System.currentTimeMillis() + AFTER_BACK_MS);
            }
            LoadDriver.sleepMs(200);
        }
        load.stop();
        runner.join();
        // after the load: until /health is 200 again (30 s at most)
        long healthyAt = -1;
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            Probe p = probe(t0);
            probes.add(p);
            if (p.status() == 200 && backAt[0] >= 0) break;
            LoadDriver.sleepMs(200);
        }
        OrderLog.write(options.ordersOut(), load.orders);
        out.println("load: " + load.summary());

        long firstDown = -1;
        for (Probe p : probes) {
            if (p.status() == 503 && firstDown < 0) firstDown = p.atMs();
            if (p.status() == 200 && backAt[0] >= 0 && p.atMs() >= backAt[0] && healthyAt < 0) healthyAt = p.atMs();
            if (p.status() != 200 && p.status() != 503) {
                report.fail("outage-health", "GET /health at +" + p.atMs() + " ms: " + (p.status() < 0 ? "no answer" : p.status())
                        + " " + p.body());
            } else if (p.status() == 503 && !p.body().contains("\"down\"")) {
                report.fail("outage-health", "503 without {\"status\": \"down\"}: " + p.body());
            }
        }
        report.expect(backAt[0] >= 0, "outage-db-back", "the launcher never said " + DbEvents.BACK + " on stdin");
        report.expect(events.malformed().isEmpty(), "db-events", "lines on stdin that say no database event: " + events.malformed());
        report.expect(firstDown >= 0, "outage-health", "GET /health never answered 503 while the database was stopped");
        report.expect(healthyAt >= 0, "outage-health", "GET /health not 200 again after the database came back");
        report.expect(load.unexpected() == 0, "load-answers", load.unexpected() + " answers neither 202 nor 503: " + load.problems);
        report.expect(load.bad503.get() == 0, "overload-answer", "503 without Retry-After/JSON: " + load.problems);
        int backSec = backAt[0] < 0 ? LoadDriver.SECONDS : (int) (backAt[0] / 1000) + 1;
        long acceptedAfter = LoadDriver.total(load.accepted, backSec, LoadDriver.SECONDS);
        report.expect(acceptedAfter > 0, "outage-resume", "no order accepted after the database came back");
        long salesAfter;
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            waitQuiet(sales, true);
            long backWall = t0 + Math.max(0, backAt[0]);
            salesAfter = sales.all().stream().filter(r -> r.created() >= backWall).count();
            // the audit over everything accepted so far: the earlier phases' orders (--orders) and these
            List<SentOrder> everything = new ArrayList<>(load.orders);
            for (String f : options.orderFiles()) everything.addAll(OrderLog.read(f));
            figures.put("salesChecked", audit(everything, sales).size());
        }
        report.expect(salesAfter > 0, "outage-resume", "no sale stored after the database came back");
        long slowest = probes.stream().mapToLong(Probe::tookMs).max().orElse(0);
        figures.put("healthProbes", probes.size());
        figures.put("healthSlowestMs", slowest);
        long downMs = firstDown >= 0 && healthyAt >= 0 ? healthyAt - firstDown : -1;
        long recoveryMs = healthyAt >= 0 && backAt[0] >= 0 ? healthyAt - backAt[0] : -1;
        if (report.failures().isEmpty()) {
            report.ok("outage", "/health 503 from +" + firstDown + " ms for " + downMs + " ms; database back at +" + backAt[0]
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
