package tradebench.loadclient.reliability;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/**
 * Crash isolation: during load, {@code POST /faults/crash-engine?engine=N}
 * (FAULTS=on). The other engines' products keep trading through the crash,
 * engine N is replaced (its products are accepted and trade again), and the
 * stored sales stay correct (the launcher's final audit). A variant without the
 * endpoint (404) fails this phase: "no fault injection".
 */
final class CrashPhase extends Phase {

    /** The window after the crash in which the other engines must trade on. */
    private static final long OTHERS_WINDOW_MS = 3_000;
    /** From this long after the crash, the crashed engine's products must trade again. */
    private static final long REPLACED_WITHIN_MS = 1_000;

    private LoadDriver load;
    private int victim;
    /** Wall-clock ms of the crash request. */
    private long crashMs;

    CrashPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        victim = options.engine();
        if (options.duration() < options.crashAt() + 4) throw new IllegalArgumentException("--duration must leave 4 s after --crash-at");
        load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        Thread runner = load.closedLoopInBackground(options.connections(), options.waitMs(), options.duration());
        LoadDriver.sleepMs((long) (options.crashAt() * 1000));
        crashMs = System.currentTimeMillis();
        HttpResponse r = crashTheEngine();
        runner.join();
        OrderLog.write(options.ordersOut(), load.orders);
        out.println("load: " + load.summary());
        figures.put("accepted", load.total(load.accepted));
        figures.put("overloaded", load.total(load.overloaded));
        if (!crashed(r)) return;
        checkLoadAnswers(load);
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            waitQuiet(sales, true);
            checkOthersTradedAndTheEngineReplaced(sales.all());
        }
    }

    /** {@code POST /faults/crash-engine}; null (and a failure) when it got no answer. */
    private HttpResponse crashTheEngine() {
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            return c.send("POST", "/faults/crash-engine?engine=" + victim);
        } catch (IOException e) {
            report.fail("crash-request", "POST /faults/crash-engine?engine=" + victim + ": no answer (" + e + ")");
            return null;
        }
    }

    /** The crash request was honoured: 202 "crashing"; a 404 is a variant without fault injection. */
    private boolean crashed(HttpResponse r) {
        if (r == null) return false;
        if (r.status() == 404) {
            report.fail("crash-request", "no fault injection: POST /faults/crash-engine answered 404 (FAULTS=on given;"
                    + " the variant does not route it yet)");
            figures.put("faultInjection", false);
            return false;
        }
        figures.put("faultInjection", r.status() == 202);
        if (!report.expect(r.status() == 202 && r.bodyText().contains("crashing"), "crash-request",
                "expected 202 {\"engine\": " + victim + ", \"status\": \"crashing\"}: " + r.status() + " " + r.bodyText())) {
            return false;
        }
        report.ok("crash-request", "engine " + victim + " crashed at +" + options.crashAt() + " s: " + r.bodyText());
        return true;
    }

    private void checkOthersTradedAndTheEngineReplaced(List<SalesTable.Row> rows) {
        long othersDuring = rows.stream().filter(x -> !ofVictim(x.productId()) && within(x.created(), 0, OTHERS_WINDOW_MS)).count();
        long victimAfter = rows.stream().filter(x -> ofVictim(x.productId()) && x.created() >= crashMs + REPLACED_WITHIN_MS).count();
        long acceptedOthersDuring = countAccepted(false, 0, OTHERS_WINDOW_MS);
        long acceptedVictimAfter = countAccepted(true, REPLACED_WITHIN_MS, Long.MAX_VALUE / 2);
        long firstNewSale = firstSaleOfTheReplacement(rows);
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

    /** A sale between two orders both sent after the crash request can only come from the replacement; -1: none. */
    private long firstSaleOfTheReplacement(List<SalesTable.Row> rows) {
        return rows.stream().filter(x -> ofVictim(x.productId()) && sentAfterTheCrash(x.poId()) && sentAfterTheCrash(x.soId()))
                .mapToLong(SalesTable.Row::created).min().orElse(-1);
    }

    /** Product p belongs to engine p mod ENGINES. */
    private boolean ofVictim(String productId) {
        return Integer.parseInt(productId) % options.engines() == victim;
    }

    /** {@code ms} (wall clock) in [crash + from, crash + to). */
    private boolean within(long ms, long fromMs, long toMs) {
        return ms >= crashMs + fromMs && ms < crashMs + toMs;
    }

    private boolean sentAfterTheCrash(long id) {
        Long t = load.sentWallMs.get(id);
        return t != null && t >= crashMs;
    }

    /** Accepted orders of the crashed engine's products ({@code ofVictim}) or of the others', sent within [from, to) of the crash. */
    private long countAccepted(boolean ofVictim, long fromMs, long toMs) {
        synchronized (load.orders) {
            return load.orders.stream().filter(o -> ofVictim(o.productId()) == ofVictim)
                    .map(SentOrder::id).map(load.sentWallMs::get)
                    .filter(t -> t != null && within(t, fromMs, toMs)).count();
        }
    }
}
