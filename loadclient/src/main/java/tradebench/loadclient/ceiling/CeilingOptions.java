package tradebench.loadclient.ceiling;

import java.util.List;
import tradebench.loadclient.Flags;
import tradebench.loadclient.Flags.Spec;

/** The settings of {@code loadclient insert-ceiling}. */
public record CeilingOptions(String dbUrl, int connections, double durationS, boolean warmupAuto, double warmupS,
                             double steadyWindowS, double steadyTolerance, double warmupMaxS, int batchRows,
                             String jsonFile, double progressS) {

    /** The largest multi-row INSERT: the variants' batch writer sends chunks of at most 1000 rows. */
    public static final int MAX_BATCH_ROWS = 1000;

    public static final List<Spec> FLAGS = List.of(
            new Spec("db-url", null, "JDBC URL of the database whose SALES table is measured (required)"),
            new Spec("connections", "4", "connections, each inserting in a loop (the variants' DB_POOL)"),
            new Spec("duration", "10", "measured seconds"),
            new Spec("warmup", "2", "seconds of inserts before the measured window (not counted), or auto: until steady"),
            new Spec("steady-window", "5", "--warmup auto: seconds per warm-up window"),
            new Spec("steady-tolerance", "0.05", "--warmup auto: steady when two consecutive windows' rows/s differ by less than this fraction"),
            new Spec("warmup-max", "60", "--warmup auto: start the measured window after this many seconds even when not steady"),
            new Spec("batch-rows", "1", "rows per INSERT: 1 = single-row autocommit (per-sale), K > 1 = one K-row INSERT per statement (batch)"),
            new Spec("json", null, "write the figures as JSON to this file"),
            new Spec("progress", "5", "seconds between progress lines"));

    public static CeilingOptions parse(String[] args) {
        Flags f = Flags.parse("insert-ceiling", FLAGS, args);
        double duration = f.seconds("duration");
        if (duration <= 0) throw new Flags.UsageException("--duration must be > 0");
        double progress = f.seconds("progress");
        if (progress <= 0) throw new Flags.UsageException("--progress must be > 0");
        boolean auto = f.string("warmup").equals("auto");
        return new CeilingOptions(f.required("db-url"), f.integer("connections", 1, 1000), duration, auto,
                auto ? 0 : f.seconds("warmup"), f.positiveNumber("steady-window"), f.positiveNumber("steady-tolerance"),
                f.seconds("warmup-max"), f.integer("batch-rows", 1, MAX_BATCH_ROWS), f.string("json"), progress);
    }
}
