package tradebench.loadclient.ceiling;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import tradebench.loadclient.CommandOptions;
import tradebench.loadclient.MeasuredWindow;

/** {@code loadclient insert-ceiling}: its settings. */
@Command(name = "insert-ceiling", sortOptions = false, showDefaultValues = true,
        defaultValueProvider = CeilingOptions.WindowDefaults.class,
        description = "this machine's SALES insert ceiling: N connections looping the variants' INSERT")
public final class CeilingOptions extends CommandOptions {

    /** The largest multi-row INSERT: the variants' batch writer sends chunks of at most 1000 rows. */
    public static final int MAX_BATCH_ROWS = 1000;

    @Option(names = "--db-url", paramLabel = "JDBC-URL", required = true,
            description = "JDBC URL of the database whose SALES table is measured (required)") private String dbUrl;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "4",
            description = "connections, each inserting in a loop (the variants' DB_POOL)") private int connections;

    @Mixin
    private MeasuredWindow window;

    @Option(names = "--batch-rows", paramLabel = "K", defaultValue = "1",
            description = "rows per INSERT: 1 = single-row autocommit (per-sale), K > 1 = one K-row INSERT per statement (batch)") private int batchRows;

    @Option(names = "--json", paramLabel = "FILE", description = "write the figures as JSON to this file") private String jsonFile;

    /** {@code --duration 10}, {@code --warmup 2}, {@code --warmup-max 60}. */
    public static final class WindowDefaults extends MeasuredWindow.Defaults {
        public WindowDefaults() {
            super("10", "2", "60");
        }
    }

    /** The options of {@code args} as {@code loadclient insert-ceiling} reads them; a mistake throws picocli's ParameterException. */
    public static CeilingOptions parse(String... args) {
        return parse(new CeilingOptions(), args);
    }

    @Override
    protected void check() {
        nonEmpty("--db-url", dbUrl);
        window.check(this);
        range("--connections", connections, 1, 1000);
        range("--batch-rows", batchRows, 1, MAX_BATCH_ROWS);
    }

    public String dbUrl() {
        return dbUrl;
    }

    public int connections() {
        return connections;
    }

    /** How long the ceiling is measured, and its warm-up. */
    public MeasuredWindow window() {
        return window;
    }

    public int batchRows() {
        return batchRows;
    }

    public String jsonFile() {
        return jsonFile;
    }

}
