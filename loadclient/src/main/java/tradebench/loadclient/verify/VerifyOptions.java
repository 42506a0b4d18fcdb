package tradebench.loadclient.verify;

import java.net.URI;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import tradebench.loadclient.CommandOptions;
import tradebench.loadclient.Variant;

/** {@code loadclient verify}: the settings of one run. */
@Command(name = "verify", sortOptions = false, showDefaultValues = true,
        description = "checks a running variant against contract sections 3 and 8;"
                + " the top 3 of its --products are kept for the exact checks")
public final class VerifyOptions extends CommandOptions {

    @Mixin
    private Variant variant;

    @Option(names = "--db-url", paramLabel = "JDBC-URL", required = true, description = "JDBC URL of the variant's database (required)") private String dbUrl;

    @Option(names = "--orders", paramLabel = "N", defaultValue = "3000", description = "random orders of the audit phase") private int orders;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "32", description = "connections of the audit phase") private int connections;

    @Option(names = "--quiet-timeout", paramLabel = "S", defaultValue = "20",
            description = "seconds to wait for the market to go quiet before the audit") private double quietTimeoutS;

    @Option(names = "--poll-timeout", paramLabel = "S", defaultValue = "10",
            description = "seconds to wait for a sale to show in /orders/{id}") private double pollTimeoutS;

    @Option(names = "--seed", paramLabel = "N", description = "random seed of the audit phase (default: random)") private Long seed;

    /** The options of {@code args} as {@code loadclient verify} reads them; a mistake throws picocli's ParameterException. */
    public static VerifyOptions parse(String... args) {
        return parse(new VerifyOptions(), args);
    }

    @Override
    protected void check() {
        variant.check(this, 4);
        nonEmpty("--db-url", dbUrl);
        range("--orders", orders, 0, 1_000_000);
        range("--connections", connections, 1, 1000);
        seconds("--quiet-timeout", quietTimeoutS);
        seconds("--poll-timeout", pollTimeoutS);
        if (seed == null) seed = System.nanoTime();
    }

    public URI url() {
        return variant.url();
    }

    public String dbUrl() {
        return dbUrl;
    }

    public int products() {
        return variant.products();
    }

    public int orders() {
        return orders;
    }

    public int connections() {
        return connections;
    }

    public double quietTimeoutS() {
        return quietTimeoutS;
    }

    public double pollTimeoutS() {
        return pollTimeoutS;
    }

    public String salesTable() {
        return variant.salesTable();
    }

    public long seed() {
        return seed;
    }

    /** Products of the random phase: 0 .. products-4. */
    int randomProducts() {
        return products() - 3;
    }

    /** Bad buys go here, beside an open counter sell that would trade with any of them that got in. */
    int badBuyProduct() {
        return products() - 3;
    }

    /** Bad sells go here, beside an open counter buy without limit. */
    int badSellProduct() {
        return products() - 2;
    }

    /** The sell-then-buy check: nothing else ever trades on it. */
    int exactProduct() {
        return products() - 1;
    }
}
