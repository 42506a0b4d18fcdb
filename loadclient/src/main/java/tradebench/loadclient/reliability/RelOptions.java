package tradebench.loadclient.reliability;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tradebench.loadclient.CommandOptions;
import tradebench.loadclient.Variant;

/**
 * {@code loadclient reliability PHASE}: one set of flags for every phase, each phase reads what
 * it needs; the flags a phase cannot run without are required for that phase.
 */
@Command(name = "reliability", sortOptions = false, showDefaultValues = true,
        description = {"the reliability suite's phases (run by ./tradebench reliability and ./tradebench test)",
                "outage, dbcrash: the launcher says what it did to the database on stdin, a line each:"
                        + " 'db-killed <epoch-ms>' (dbcrash), 'db-back <epoch-ms>'"})
public final class RelOptions extends CommandOptions {

    /** The phases, in the order the suite runs them. */
    static final List<String> PHASES = List.of("bad-input", "crash", "outage", "dbcrash", "load", "overload", "audit");

    @Parameters(index = "0", paramLabel = "PHASE", description = "bad-input | crash | outage | dbcrash | load | overload | audit") private String phase;

    @Mixin
    private Variant variant;

    @Option(names = "--db-url", paramLabel = "JDBC-URL",
            description = "JDBC URL of the variant's database (its SALES holds only this suite's run)") private String dbUrl;

    @Option(names = "--engines", paramLabel = "N", defaultValue = "4",
            description = "the variant's ENGINES (crash: product p belongs to engine p mod ENGINES)") private int engines;

    @Option(names = "--prefix", paramLabel = "P", defaultValue = "r-",
            description = "user prefix of the run's orders (the audit knows the run's users by it)") private String prefix;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "random seed") private long seed;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "16", description = "connections of the load") private int connections;

    @Option(names = "--wait", paramLabel = "MS", defaultValue = "5", description = "closed loop: ms each connection pauses after an answer") private int waitMs;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "10", description = "seconds of load (overload: seconds of overload)") private double duration;

    @Option(names = "--orders-out", paramLabel = "FILE", description = "file the accepted orders are written to (audit reads them)") private String ordersOut;

    @Option(names = "--orders", paramLabel = "FILE[,FILE...]", description = "audit: comma-separated order files") private String orders;

    @Option(names = "--json", paramLabel = "FILE", description = "write the phase's figures to this file") private String json;

    @Option(names = "--engine", paramLabel = "N", defaultValue = "1", description = "crash: the engine to crash") private int engine;

    @Option(names = "--crash-at", paramLabel = "S", defaultValue = "3", description = "crash: seconds into the load") private double crashAt;

    @Option(names = "--request-timeout", paramLabel = "MS", defaultValue = "30000",
            description = "ms an order may wait for its answer (dbcrash: longer is a hang)") private int requestTimeoutMs;

    @Option(names = "--factor", paramLabel = "F", defaultValue = "5", description = "overload: offered rate = factor x measured capacity") private double factor;

    @Option(names = "--measure", paramLabel = "S", defaultValue = "5", description = "overload: seconds of the capacity measurement") private double measure;

    @Option(names = "--recovery", paramLabel = "S", defaultValue = "10", description = "overload, dbcrash: seconds within which full speed must be back") private double recovery;

    @Option(names = "--expect-sales", paramLabel = "N",
            description = "audit: SALES must hold exactly this many rows (the exit line's sales)") private Long expectSales;

    @Option(names = "--min-sales", paramLabel = "N", description = "audit: SALES must hold at least this many rows (the exit line's"
            + " sales after a crash: a killed engine may have stored a sale it never reported)") private Long minSales;

    @Option(names = "--expect-accepted", paramLabel = "N", description = "audit: the variant's own accepted count (the exit line's accepted)") private Long expectAccepted;

    @Option(names = "--quiet-timeout", paramLabel = "S", defaultValue = "30", description = "seconds to wait for the market to go quiet") private double quietTimeout;

    @Option(names = "--protocol", paramLabel = "on|off", defaultValue = "on", description = "bad-input: also raw garbage bytes and"
            + " malformed percent-encoding, refused by the HTTP layer (off: only the application's refusals; the tests' fake"
            + " market on the JDK HttpServer)")
    private String protocol;

    /** The options of {@code args} (the phase first) as {@code loadclient reliability} reads them. */
    static RelOptions parse(String... args) {
        return parse(new RelOptions(), args);
    }

    @Override
    protected void check() {
        if (!PHASES.contains(phase)) throw usage("unknown reliability phase: " + phase + " (" + String.join(" | ", PHASES) + ")");
        variant.check(this, 1);
        if (!protocol.equals("on") && !protocol.equals("off")) throw usage("--protocol must be on or off: " + protocol);
        if (!prefix.matches("[A-Za-z0-9_.-]{1,20}")) throw usage("--prefix must be 1..20 of [A-Za-z0-9_.-]: " + prefix);
        range("--engines", engines, 1, 10_000);
        range("--connections", connections, 1, 2000);
        range("--wait", waitMs, 0, 60_000);
        range("--request-timeout", requestTimeoutMs, 100, 600_000);
        seconds("--duration", duration);
        seconds("--crash-at", crashAt);
        seconds("--measure", measure);
        seconds("--recovery", recovery);
        seconds("--quiet-timeout", quietTimeout);
        positive("--factor", factor);
        for (String flag : required()) {
            String value = switch (flag) {
                case "--db-url" -> dbUrl;
                case "--orders-out" -> ordersOut;
                case "--orders" -> orders;
                default -> throw new IllegalStateException(flag);
            };
            if (value == null || value.isEmpty()) throw usage("reliability " + phase + ": " + flag + " is required");
        }
        if (phase.equals("crash")) range("--engine", engine, 0, engines - 1);
    }

    /** The flags {@link #phase()} cannot run without. */
    private List<String> required() {
        return switch (phase) {
            case "bad-input" -> List.of("--db-url");
            case "crash", "overload", "outage", "dbcrash" -> List.of("--db-url", "--orders-out");
            case "load" -> List.of("--orders-out");
            case "audit" -> List.of("--db-url", "--orders");
            default -> List.of();
        };
    }

    public String phase() {
        return phase;
    }

    URI url() {
        return variant.url();
    }

    String dbUrl() {
        return dbUrl;
    }

    boolean protocol() {
        return protocol.equals("on");
    }

    String salesTable() {
        return variant.salesTable();
    }

    int products() {
        return variant.products();
    }

    int engines() {
        return engines;
    }

    String prefix() {
        return prefix;
    }

    long seed() {
        return seed;
    }

    int connections() {
        return connections;
    }

    int waitMs() {
        return waitMs;
    }

    double duration() {
        return duration;
    }

    /** The file the accepted orders are written to; null when not given (bad-input writes none then). */
    String ordersOut() {
        return ordersOut;
    }

    /** The order files of {@code --orders}; empty when not given. */
    List<String> orderFiles() {
        if (orders == null) return List.of();
        return Arrays.stream(orders.split(",")).map(String::trim).filter(f -> !f.isEmpty()).toList();
    }

    /** The file {@code --json} names; null when not given. */
    String json() {
        return json;
    }

    int engine() {
        return engine;
    }

    double crashAt() {
        return crashAt;
    }

    int requestTimeoutMs() {
        return requestTimeoutMs;
    }

    double factor() {
        return factor;
    }

    double measure() {
        return measure;
    }

    double recovery() {
        return recovery;
    }

    /** {@code --expect-sales}; null when not given. */
    Long expectSales() {
        return expectSales;
    }

    /** {@code --min-sales}; null when not given. */
    Long minSales() {
        return minSales;
    }

    /** {@code --expect-accepted}; null when not given. */
    Long expectAccepted() {
        return expectAccepted;
    }

    double quietTimeout() {
        return quietTimeout;
    }
}
