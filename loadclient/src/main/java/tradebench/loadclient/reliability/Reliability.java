package tradebench.loadclient.reliability;

import java.io.PrintStream;
import java.util.Arrays;
import tradebench.loadclient.Flags;

/**
 * {@code loadclient reliability PHASE [flags]}: the HTTP and database side of
 * the reliability suite. The harness (harness/tradebench_harness/reliability.py)
 * starts and stops the variant and the database and calls one phase at a time;
 * each phase prints ok/FAIL lines, a {@code figures {...}} line and exits 1 on a failure.
 */
public final class Reliability {

    public static final String PHASES = "bad-input | crash | outage | dbcrash | load | overload | audit";

    private Reliability() {}

    public static int run(String[] args, PrintStream out) {
        if (args.length == 0) throw new Flags.UsageException("reliability needs a phase: " + PHASES);
        String phase = args[0];
        RelOptions o = RelOptions.parse(phase, Arrays.copyOfRange(args, 1, args.length));
        Phase p = switch (phase) {
            case "bad-input" -> new BadInputPhase(o, out);
            case "crash" -> new CrashPhase(o, out);
            case "outage" -> new OutagePhase(o, out);
            case "dbcrash" -> new DbCrashPhase(o, out);
            case "load" -> new LoadPhase(o, out);
            case "overload" -> new OverloadPhase(o, out);
            case "audit" -> new AuditPhase(o, out);
            default -> throw new Flags.UsageException("unknown reliability phase: " + phase + " (" + PHASES + ")");
        };
        return p.execute(phase);
    }

    public static String usage() {
        return Flags.usage("reliability " + "{" + PHASES.replace(" ", "") + "}",
                "the reliability suite's phases (run by ./tradebench reliability and ./tradebench test)",
                RelOptions.FLAGS);
    }
}
