package tradebench.loadclient.reliability;

import java.io.PrintStream;
import tradebench.loadclient.audit.OrderLog;

/**
 * Plain load that keeps its accepted orders: the launcher sends SIGTERM to the
 * variant in the middle of it (shutdown). Refused connections and "shutting
 * down" 503s after the signal are expected; any other answer is not.
 */
final class LoadPhase extends Phase {

    LoadPhase(RelOptions options, PrintStream out) {
        super(options, out);
    }

    @Override
    void run() throws Exception {
        LoadDriver load = new LoadDriver(options.url(), options.products(), options.prefix(), options.seed());
        load.closedLoop(options.connections(), options.waitMs(), options.duration());
        OrderLog.write(options.ordersOut(), load.orders);
        out.println("load: " + load.summary());
        checkLoadAnswers(load);
        if (report.failures().isEmpty()) report.ok("load", load.summary());
        figures.put("accepted", load.total(load.accepted));
        figures.put("overloaded", load.total(load.overloaded));
        figures.put("ioErrors", load.ioErrors.get());
    }
}
