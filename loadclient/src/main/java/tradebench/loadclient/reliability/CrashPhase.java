package tradebench.loadclient.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;
import tradebench.loadclient.verify.SalesTable;
import tradebench.loadclient.verify.SentOrder;

/**
 * Crash isolation: during load, {@code POST /faults/crash-engine?engine=N}
 * (FAULTS=on). The other engines' products keep trading through the crash,
 * engine N is replaced (its products are accepted and trade again), and the
 * stored sales stay correct (the launcher's final audit). A variant without the
 * endpoint (404) fails this phase: "no fault injection".
 */
final class CrashPhase extends Phase {

    CrashPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        int engines = options.engines();
        int victim = options.engine();
        double crashAt = options.crashAt();
        double duration = options.duration();
        if (duration < crashAt + 4) throw new IllegalArgumentException("--duration must leave 4 s after --crash-at");
        LoadDriver load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        Thread runner = Thread.ofPlatform().start(() -> {
            try {
                load.closedLoop(options.connections(), options.waitMs(), duration);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        LoadDriver.sleepMs((long) (crashAt * 1000));
        long crashMs = System.currentTimeMillis();
        HttpResponse r;
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            r = c.send("POST", "/faults/crash-engine?engine=" + victim);
        } catch (IOException e) {
            r = null;
            report.fail("crash-request", "POST /faults/crash-engine?engine=" + victim + ": no answer (" + e + ")");
        }
        runner.join();
        OrderLog.write(options.ordersOut(), load.orders);
        out.println("load: " + load.summary());
        figures.put("accepted", load.total(load.accepted));
        figures.put("overloaded", load.total(load.overloaded));
        if (r == null) return;
        if (r.status() == 404) {
            report.fail("crash-request", "no fault injection: POST /faults/crash-engine answered 404 (FAULTS=on given;"
                    + " the variant does not route it yet)");
            figures.put("faultInjection", false);
            return;
        }
        figures.put("faultInjection", r.status() == 202);
        if (!report.expect(r.status() == 202 && r.bodyText().contains("crashing"), "crash-request",
                "expected 202 {\"engine\": " + victim + ", \"status\": \"crashing\"}: " + r.status() + " " + r.bodyText())) {
            return;
        }
        report.ok("crash-request", "engine " + victim + " crashed at +" + crashAt + " s: " + r.bodyText());
        report.expect(load.unexpected() == 0, "load-answers", load.unexpected() + " answers neither 202 nor 503: " + load.problems);
        report.expect(load.bad503.get() == 0, "overload-answer", "503 without Retry-After/JSON: " + load.problems);

        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            waitQuiet(sales, true);
            List<SalesTable.Row> rows = sales.all();
            long othersDuring = rows.stream().filter(x -> engineOf(x, engines) != victim
                    && x.created() >= crashMs && x.created() < crashMs + 3000).count();
            long victimAfter = rows.stream().filter(x -> engineOf(x, engines) == victim && x.created() >= crashMs + 1000).count();
            long acceptedOthersDuring = countAccepted(load, engines, victim, false, crashMs, crashMs + 3000);
            long acceptedVictimAfter = countAccepted(load, engines, victim, true, crashMs + 1000, Long.MAX_VALUE);
            // a sale between two orders both sent after the crash request can only come from the replacement
            long firstNewSale = rows.stream().filter(x -> engineOf(x, engines) == victim
                    && sentAfter(load, x.poId(), crashMs) && sentAfter(load, x.soId(), crashMs))
                    .mapToLong(SalesTable.Row::created).min().orElse(-1);
            report.expect(othersDuring > 0 && acceptedOthersDuring > 0, "crash-others-trade",
                    "in the 3 s after the crash the other engines stored " + othersDuring + " sales and accepted "
                            + acceptedOthersDuring + " orders");
            report.expect(victimAfter > 0 && acceptedVictimAfter > 0 && firstNewSale > 0, "crash-replaced",
                    "engine " + victim + "'s products from 1 s after the crash: " + acceptedVictimAfter + " accepted, "
                            + victimAfter + " sales stored (first sale of orders sent after the crash: "
                            + (firstNewSale > 0 ? "+" + (firstNewSale - crashMs) + " ms" : "none") + ")");
            if (report.failures().isEmpty()) {
                report.ok("crash", "others kept trading (" + othersDuring + " sales in the 3 s after the crash), engine "
                        + victim + " replaced (first new sale +" + (firstNewSale - crashMs) + " ms, " + victimAfter
                        + " sales after +1 s)");
            }
            figures.put("othersSalesDuring3s", othersDuring);
            figures.put("victimSalesAfter1s", victimAfter);
            figures.put("replacedAfterMs", firstNewSale > 0 ? firstNewSale - crashMs : -1);
        }
    }

    private static int engineOf(SalesTable.Row r, int engines) {
        return Integer.parseInt(r.productId()) % engines;
    }

    private static boolean sentAfter(LoadDriver load, long id, long ms) {
        Long t = load.sentWallMs.get(id);
        return t != null && t >= ms;
    }

    private static long countAccepted(LoadDriver load, int engines, int victim, boolean ofVictim, long fromMs, long toMs) {
        synchronized (load.orders) {
            return load.orders.stream().filter(o -> (Integer.parseInt(o.productId()) % engines == victim) == ofVictim)
                    .map(SentOrder::id).map(load.sentWallMs::get)
                    .filter(t -> t != null && t >= fromMs && t < toMs).count();
        }
    }
}
