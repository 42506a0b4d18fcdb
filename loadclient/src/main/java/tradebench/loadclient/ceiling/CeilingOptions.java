package tradebench.loadclient.ceiling;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tradebench.loadclient.CommandOptions;

/** {@code loadclient insert-ceiling}: its settings. */
@Command(name = "insert-ceiling", sortOptions = false, showDefaultValues = true,
        description = "this machine's SALES insert ceiling: N connections looping the variants' INSERT")
public final class CeilingOptions extends CommandOptions {

    /** The largest multi-row INSERT: the variants' batch writer sends chunks of at most 1000 rows. */
    public static final int MAX_BATCH_ROWS = 1000;

    @Option(names = "--db-url", paramLabel = "JDBC-URL", required = true,
            description = "JDBC URL of the database whose SALES table is measured (required)")
    private String dbUrl;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "4",
            description = "connections, each inserting in a loop (the variants' DB_POOL)")
    private int connections;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "10", description = "measured seconds")
    private double durationS;

    @Option(names = "--warmup", paramLabel = "S|auto", defaultValue = "2",
            description = "seconds of inserts before the measured window (not counted), or auto: until steady")
    private String warmup;

    @Option(names = "--steady-window", paramLabel = "S", defaultValue = "5", description = "--warmup auto: seconds per warm-up window")
    private double steadyWindowS;

    @Option(names = "--steady-tolerance", paramLabel = "F", defaultValue = "0.05",
            description = "--warmup auto: steady when two consecutive windows' rows/s differ by less than this fraction")
    private double steadyTolerance;

    @Option(names = "--warmup-max", paramLabel = "S", defaultValue = "60",
            description = "--warmup auto: start the measured window after this many seconds even when not steady")
    private double warmupMaxS;

    @Option(names = "--batch-rows", paramLabel = "K", defaultValue = "1",
            description = "rows per INSERT: 1 = single-row autocommit (per-sale), K > 1 = one K-row INSERT per statement (batch)")
    private int batchRows;

    @Option(names = "--json", paramLabel = "FILE", description = "write the figures as JSON to this file")
    private String jsonFile;

    @Option(names = "--progress", paramLabel = "S", defaultValue = "5", description = "seconds between progress lines")
    private double progressS;

    private boolean warmupAuto;
    private double warmupS;

    /** The options of {@code args} as {@code loadclient insert-ceiling} reads them; a mistake throws picocli's ParameterException. */
    public static CeilingOptions parse(String... args) {
        return parse(new CeilingOptions(), args);
    }

    @Override
    protected void check() {
        nonEmpty("--db-url", dbUrl);
        positiveSeconds("--duration", durationS);
        positiveSeconds("--progress", progressS);
        warmupAuto = warmup.equals("auto");
        warmupS = warmupAuto ? 0 : seconds("--warmup", warmup);
        positive("--steady-window", steadyWindowS);
        positive("--steady-tolerance", steadyTolerance);
        seconds("--warmup-max", warmupMaxS);
        range("--connections", connections, 1, 1000);
        range("--batch-rows", batchRows, 1, MAX_BATCH_ROWS);
    }

    public String dbUrl() {
        return dbUrl;
    }

    public int connections() {
        return connections;
    }

    public double durationS() {
        return durationS;
    }

    public boolean warmupAuto() {
        return warmupAuto;
    }

    public double warmupS() {
        return warmupS;
    }

    public double steadyWindowS() {
        return steadyWindowS;
    }

    public double steadyTolerance() {
        return steadyTolerance;
    }

    public double warmupMaxS() {
        return warmupMaxS;
    }

    public int batchRows() {
        return batchRows;
    }

    public String jsonFile() {
        return jsonFile;
    }

    public double progressS() {
        return progressS;
    }
}
