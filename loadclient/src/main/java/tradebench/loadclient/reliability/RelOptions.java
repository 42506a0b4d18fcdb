package tradebench.loadclient.reliability;

import java.net.URI;
import java.util.List;
import tradebench.loadclient.Flags;
import tradebench.loadclient.Flags.Spec;

/** The flags of {@code loadclient reliability PHASE}: one set for every phase, each phase reads what it needs. */
record RelOptions(Flags flags, URI url) {

    static final List<Spec> FLAGS = List.of(
            new Spec("url", "http://127.0.0.1:3000", "base URL of the variant"),
            new Spec("db-url", null, "JDBC URL of the variant's database (its SALES holds only this suite's run)"),
            new Spec("products", "100", "the variant's PRODUCTS"),
            new Spec("engines", "4", "the variant's ENGINES (crash: product p belongs to engine p mod ENGINES)"),
            new Spec("prefix", "r-", "user prefix of the run's orders (the audit knows the run's users by it)"),
            new Spec("seed", "42", "random seed"),
            new Spec("connections", "16", "connections of the load"),
            new Spec("wait", "5", "closed loop: ms each connection pauses after an answer"),
            new Spec("duration", "10", "seconds of load (overload: seconds of overload)"),
            new Spec("orders-out", null, "file the accepted orders are written to (audit reads them)"),
            new Spec("orders", null, "audit: comma-separated order files"),
            new Spec("json", null, "write the phase's figures to this file"),
            new Spec("engine", "1", "crash: the engine to crash"),
            new Spec("crash-at", "3", "crash: seconds into the load"),
            new Spec("db-back-file", null, "outage: the launcher creates this file when the database is back;"
                    + " dbcrash: it writes the wall-clock ms the database accepted connections again into it"),
            new Spec("db-killed-file", null, "dbcrash: the launcher writes the wall-clock ms of its SIGKILL of the"
                    + " database server into this file"),
            new Spec("request-timeout", "30000", "ms an order may wait for its answer (dbcrash: longer is a hang)"),
            new Spec("factor", "5", "overload: offered rate = factor x measured capacity"),
            new Spec("measure", "5", "overload: seconds of the capacity measurement"),
            new Spec("recovery", "10", "overload, dbcrash: seconds within which full speed must be back"),
            new Spec("expect-sales", null, "audit: SALES must hold exactly this many rows (the exit line's sales)"),
            new Spec("min-sales", null, "audit: SALES must hold at least this many rows (the exit line's sales after a"
                    + " crash: a killed engine may have stored a sale it never reported)"),
            new Spec("expect-accepted", null, "audit: the variant's own accepted count (the exit line's accepted)"),
            new Spec("quiet-timeout", "30", "seconds to wait for the market to go quiet"),
            new Spec("protocol", "on", "bad-input: also raw garbage bytes and malformed percent-encoding, refused by the"
                    + " HTTP layer (off: only the application's refusals; the tests' fake market on the JDK HttpServer)"),
            new Spec("sales-table", "SALES", "the table the variant stores its sales in (tests use a table of their own)"));

    static RelOptions parse(String phase, String[] args) {
        Flags f = Flags.parse("reliability " + phase, FLAGS, args);
        String url = f.required("url");
        if (url.endsWith("/")) url = url.substring(0, url.length() - 1);
        URI uri = URI.create(url);
        if (uri.getHost() == null) throw new Flags.UsageException("--url needs a host: " + url);
        return new RelOptions(f, uri);
    }

    String dbUrl() {
        return flags.required("db-url");
    }

    boolean protocol() {
        String v = flags.string("protocol");
        if (!v.equals("on") && !v.equals("off")) throw new Flags.UsageException("--protocol must be on or off: " + v);
        return v.equals("on");
    }

    String salesTable() {
        String t = flags.string("sales-table");
        if (!t.matches("[A-Za-z0-9_]{1,64}")) throw new Flags.UsageException("--sales-table: bad table name " + t);
        return t;
    }

    int products() {
        return flags.integer("products", 1, 1_000_000);
    }

    int engines() {
        return flags.integer("engines", 1, 10_000);
    }

    String prefix() {
        String p = flags.string("prefix");
        if (!p.matches("[A-Za-z0-9_.-]{1,20}")) throw new Flags.UsageException("--prefix must be 1..20 of [A-Za-z0-9_.-]: " + p);
        return p;
    }

    long seed() {
        return flags.longValue("seed");
    }

    int connections() {
        return flags.integer("connections", 1, 2000);
    }

    int waitMs() {
        return flags.integer("wait", 0, 60_000);
    }

    double duration() {
        return flags.seconds("duration");
    }

    double seconds(String name) {
        return flags.seconds(name);
    }

    String string(String name) {
        return flags.string(name);
    }

    boolean has(String name) {
        return flags.has(name);
    }

    long longValue(String name) {
        return flags.longValue(name);
    }

    int integer(String name, int min, int max) {
        return flags.integer(name, min, max);
    }
}
