package tradebench.loadclient.verify;

import java.net.URI;
import java.util.List;
import tradebench.loadclient.Flags;
import tradebench.loadclient.Flags.Spec;

/** The settings of one {@code verify} run. */
public record VerifyOptions(
        URI url,
        String dbUrl,
        int products,
        int orders,
        int connections,
        double quietTimeoutS,
        double pollTimeoutS,
        String salesTable,
        long seed) {

    public static final List<Spec> FLAGS = List.of(
            new Spec("url", "http://127.0.0.1:3000", "base URL of the variant"),
            new Spec("db-url", null, "JDBC URL of the variant's database (required)"),
            new Spec("products", "100", "the variant's PRODUCTS (the top 3 products are kept for the exact checks)"),
            new Spec("orders", "3000", "random orders of the audit phase"),
            new Spec("connections", "32", "connections of the audit phase"),
            new Spec("quiet-timeout", "20", "seconds to wait for the market to go quiet before the audit"),
            new Spec("poll-timeout", "10", "seconds to wait for a sale to show in /orders/{id}"),
            new Spec("sales-table", "SALES", "table to audit (tests use a copy without the unique key)"),
            new Spec("seed", null, "random seed of the audit phase (default: random)"));

    public static VerifyOptions parse(String[] args) {
        Flags f = Flags.parse("verify", FLAGS, args);
        String url = f.required("url");
        if (url.endsWith("/")) url = url.substring(0, url.length() - 1);
        URI uri = URI.create(url);
        if (uri.getHost() == null) throw new Flags.UsageException("--url needs a host: " + url);
        String table = f.string("sales-table");
        if (!table.matches("[A-Za-z0-9_]{1,64}")) throw new Flags.UsageException("--sales-table: bad table name " + table);
        return new VerifyOptions(uri, f.required("db-url"),
                f.integer("products", 4, 1_000_000),
                f.integer("orders", 0, 1_000_000),
                f.integer("connections", 1, 1000),
                f.seconds("quiet-timeout"),
                f.seconds("poll-timeout"),
                table,
                f.has("seed") ? f.longValue("seed") : System.nanoTime());
    }

    /** Products of the random phase: 0 .. products-4. */
    int randomProducts() {
        return products - 3;
    }

    /** Bad buys go here, beside an open counter sell that would trade with any of them that got in. */
    int badBuyProduct() {
        return products - 3;
    }

    /** Bad sells go here, beside an open counter buy without limit. */
    int badSellProduct() {
        return products - 2;
    }

    /** The sell-then-buy check: nothing else ever trades on it. */
    int exactProduct() {
        return products - 1;
    }
}
