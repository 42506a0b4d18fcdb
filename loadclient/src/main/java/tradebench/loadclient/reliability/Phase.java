package tradebench.loadclient.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tradebench.loadclient.audit.Report;
import tradebench.loadclient.audit.SalesAudit;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;
import tradebench.loadclient.http.HttpConnection;
import tradebench.loadclient.http.HttpResponse;

/** What every phase shares: options, the report (ok/FAIL lines), figures (printed and written as JSON). */
abstract class Phase {

    static final ObjectMapper JSON = new ObjectMapper();

    final RelOptions options;
    final PrintStream out;
    final Report report;
    final ObjectNode figures = JSON.createObjectNode();
    /** The audit {@link #audit} ran last: what is left of each order after the rows it judged. */
    SalesAudit lastAudit;

    Phase(RelOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.report = new Report(out);
    }

    abstract void run() throws Exception;

    /** Runs the phase; 0 when every check passed. */
    final int execute(String name) {
        figures.put("phase", name);
        try {
            run();
        } catch (Exception e) {
            report.fail(name, "the phase stopped: " + e);
        }
        figures.put("failures", report.failures().size());
        out.println("figures " + figures);
        String file = options.json();
        if (file != null) {
            try {
                JSON.enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(file), figures);
            } catch (IOException e) {
                report.fail("json", "cannot write " + file + ": " + e);
            }
        }
        report.summary();
        return report.failures().isEmpty() ? 0 : 1;
    }

    /** GET a JSON document; null when the answer is not 200 JSON. */
    JsonNode getJson(String path) {
        try (HttpConnection c = new HttpConnection(options.url(), 10_000)) {
            HttpResponse r = c.send("GET", path);
            if (r.status() != 200) return null;
            return JSON.readTree(r.body());
        } catch (IOException e) {
            return null;
        }
    }

    /** GET /health's status code; -1 when the service did not answer. */
    int health() {
        try (HttpConnection c = new HttpConnection(options.url(), 5_000)) {
            return c.send("GET", "/health").status();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Every answer of LOAD a 202 or a well-formed 503 (Retry-After, JSON). */
    void checkLoadAnswers(LoadDriver load) {
        report.expect(load.unexpected() == 0, "load-answers", load.unexpected() + " answers neither 202 nor 503: " + load.problems);
        report.expect(load.bad503.get() == 0, "overload-answer", "503 without Retry-After/JSON: " + load.problems);
    }

    JsonNode stats() {
        return getJson("/stats");
    }

    static long openPlusPending(JsonNode stats) {
        return stats.path("openOrders").asLong() + stats.path("pendingOrders").asLong();
    }

    /** Waits until nothing is pending and SALES stopped growing for half a second; false after --quiet-timeout. */
    boolean waitQuiet(SalesTable sales, boolean serviceUp) throws SQLException {
        long deadline = System.nanoTime() + (long) (options.quietTimeout() * 1e9);
        long last = -1;
        while (System.nanoTime() < deadline) {
            long rows = sales.count();
            JsonNode s = serviceUp ? stats() : null;
            boolean pending = serviceUp && (s == null || s.path("pendingOrders").asLong(-1) != 0);
            if (rows == last && !pending) return true;
            last = rows;
            LoadDriver.sleepMs(500);
        }
        report.fail("quiet", "SALES still growing or orders pending after " + options.quietTimeout() + " s");
        return false;
    }

    /**
     * The audit of {@code loadclient verify} over every row of SALES (the suite's
     * database holds only its own run): every row names orders the suite got a
     * 202 for, no (PO, SO) pair twice, no order over-filled, prices, names and
     * products right. Returns the rows checked.
     */
    List<SalesTable.Row> audit(List<SentOrder> orders, SalesTable sales) throws SQLException {
        Map<Long, SentOrder> byId = new HashMap<>();
        for (SentOrder o : orders) {
            if (byId.put(o.id(), o) != null) report.fail("ids", "id " + o.id() + " given to two accepted orders");
        }
        List<SalesTable.Row> rows = sales.all();
        int before = report.failures().size();
        lastAudit = new SalesAudit(byId, options.prefix(), report);
        List<SalesTable.Row> concerned = lastAudit.audit(rows);
        for (SalesTable.Row r : rows) {
            if (!byId.containsKey(r.poId()) || !byId.containsKey(r.soId())) {
                report.fail("sale-unaccepted-order", "a row whose PO or SO the suite never got a 202 for: " + r);
            }
        }
        if (concerned.size() != rows.size()) {
            report.fail("sale-foreign", (rows.size() - concerned.size()) + " rows name none of the suite's orders");
        }
        if (report.failures().size() == before) {
            report.ok("sales-audit", rows.size() + " SALES rows over " + orders.size() + " accepted orders: each (PO, SO) once,"
                    + " no order over-filled, every row from two accepted orders, prices, names and products right");
        }
        return rows;
    }
}
