package tradebench.loadclient.reliability;

import java.io.InputStream;
import java.io.PrintStream;

/**
 * {@code loadclient reliability PHASE [flags]}: the HTTP and database side of
 * the reliability suite. The harness (harness/tradebench_harness/suites/reliability.py)
 * starts and stops the variant and the database and calls one phase at a time;
 * each phase prints ok/FAIL lines, a {@code figures {...}} line and exits 1 on a failure.
 */
public final class Reliability {

    private Reliability() {}

    /**
     * Runs the phase {@code options} name; 0 when every check passed. {@code in} is where the launcher says
     * what it did to the database ({@link DbEvents}); only the phases around a database outage read it.
     */
    public static int run(RelOptions options, InputStream in, PrintStream out) {
        Phase p = switch (options.phase()) {
            case "bad-input" -> new BadInputPhase(options, out);
            case "crash" -> new CrashPhase(options, out);
            case "outage" -> new OutagePhase(options, out, DbEvents.listen(in));
            case "dbcrash" -> new DbCrashPhase(options, out, DbEvents.listen(in));
            case "load" -> new LoadPhase(options, out);
            case "overload" -> new OverloadPhase(options, out);
            case "audit" -> new AuditPhase(options, out);
            default -> throw new IllegalArgumentException("unknown reliability phase: " + options.phase());
        };
        return p.execute(options.phase());
    }
}
