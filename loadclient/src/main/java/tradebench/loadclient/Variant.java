package tradebench.loadclient;

import java.net.URI;
import picocli.CommandLine.Option;

/** The flags that say which variant is checked and how it is set up (verify, reliability). */
public final class Variant {

    @Option(names = "--url", paramLabel = "URL", defaultValue = "http://127.0.0.1:3000", description = "base URL of the variant") private String urlText;

    @Option(names = "--products", paramLabel = "N", defaultValue = "100", description = "the variant's PRODUCTS") private int products;

    @Option(names = "--sales-table", paramLabel = "TABLE", defaultValue = "SALES",
            description = "the table the variant stores its sales in (tests use a table of their own)") private String salesTable;

    private URI url;

    /**
     * Checks the values picocli has set, refusing a mistake as {@code command}'s usage error;
     * {@code minProducts}: the fewest products the command can work with.
     */
    public void check(CommandOptions command, int minProducts) {
        url = command.baseUrl("--url", command.nonEmpty("--url", urlText));
        command.range("--products", products, minProducts, 1_000_000);
        command.tableName("--sales-table", salesTable);
    }

    public URI url() {
        return url;
    }

    public int products() {
        return products;
    }

    public String salesTable() {
        return salesTable;
    }
}
