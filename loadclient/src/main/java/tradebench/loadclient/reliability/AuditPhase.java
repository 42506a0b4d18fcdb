package tradebench.loadclient.reliability;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import tradebench.loadclient.audit.OrderLog;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;

/**
 * The audit after a variant stopped: every order file of the run against SALES,
 * and the exit line's counts: {@code sales} = the rows stored,
 * {@code accepted} = the 202s the suite received.
 */
final class AuditPhase extends Phase {

    AuditPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        List<SentOrder> orders = new ArrayList<>();
        for (String f : options.orderFiles()) orders.addAll(OrderLog.read(f));
        try (SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            List<SalesTable.Row> rows = audit(orders, sales);
            figures.put("salesChecked", rows.size());
            figures.put("ordersAccepted", orders.size());
            if (options.expectSales() != null) {
                long n = options.expectSales();
                if (report.expect(rows.size() == n, "exit-sales", "the exit line says sales=" + n + ", SALES holds " + rows.size())) {
                    report.ok("exit-sales", "the exit line's sales=" + n + " are all in SALES, each once");
                }
            }
            if (options.minSales() != null) {
                long n = options.minSales();
                if (report.expect(rows.size() >= n, "exit-sales", "the exit line says sales=" + n + ", SALES holds only " + rows.size())) {
                    report.ok("exit-sales", "the exit line's sales=" + n + " are all in SALES, each once (" + rows.size()
                            + " rows: " + (rows.size() - n) + " stored by a crashed engine that could not report them)");
                }
            }
            if (options.expectAccepted() != null) {
                long n = options.expectAccepted();
                if (report.expect(orders.size() == n, "exit-accepted", "the exit line says accepted=" + n
                        + ", the suite received " + orders.size() + " 202s")) {
                    report.ok("exit-accepted", "the exit line's accepted=" + n + " = the 202s the suite received");
                }
            }
        }
    }
}
