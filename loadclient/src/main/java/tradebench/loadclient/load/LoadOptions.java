package tradebench.loadclient.load;

import java.net.URI;
import java.util.List;
import tradebench.loadclient.Flags;
import tradebench.loadclient.Flags.Spec;

/** The settings of one {@code load} run (contract section 6 plus the fixed-rate mode). */
public record LoadOptions(
        URI url,
        int concurrency,
        int waitMs,
        double rate,
        double durationS,
        double warmupS,
        int products,
        int users,
        long seed,
        String dbUrl,
        String jsonFile,
        double progressS,
        int timeoutMs,
        boolean virtualThreads,
        String client) {

    public static final List<Spec> FLAGS = List.of(
            new Spec("url", "http://127.0.0.1:3000", "base URL of the variant"),
            new Spec("concurrency", "80", "workers, one keep-alive connection each"),
            new Spec("wait", "60", "closed loop: pause in ms after each answer"),
            new Spec("rate", null, "fixed-rate mode: orders/s over all connections (--wait is then ignored)"),
            new Spec("duration", "60", "measured seconds"),
            new Spec("warmup", "10", "seconds of load before the measured window (discarded)"),
            new Spec("products", "100", "products 0..N-1"),
            new Spec("users", "1000", "users b0..b<N-1> and s0..s<N-1>"),
            new Spec("seed", "42", "random seed (worker i uses seed+i)"),
            new Spec("db-url", null, "JDBC URL of the variant's database: count SALES rows of the window"),
            new Spec("json", null, "write every figure as JSON to this file"),
            new Spec("progress", "5", "seconds between progress lines"),
            new Spec("timeout", "30000", "ms to wait for one answer before counting an I/O error"),
            new Spec("threads", "virtual", "worker threads: virtual or platform"),
            new Spec("client", "nio", "HTTP client: nio (event loops, one per core), blocking (a thread per connection) or jdk (java.net.http, for comparison)"));

    public static LoadOptions parse(String[] args) {
        Flags f = Flags.parse("load", FLAGS, args);
        URI url = URI.create(stripSlash(f.required("url")));
        if (url.getHost() == null) throw new Flags.UsageException("--url needs a host: " + url);
        String threads = f.string("threads");
        if (!threads.equals("platform") && !threads.equals("virtual")) {
            throw new Flags.UsageException("--threads must be platform or virtual: " + threads);
        }
        String client = f.string("client");
        if (!client.equals("nio") && !client.equals("blocking") && !client.equals("jdk")) {
            throw new Flags.UsageException("--client must be nio, blocking or jdk: " + client);
        }
        double rate = f.has("rate") ? f.positiveNumber("rate") : 0;
        double duration = f.seconds("duration");
        if (duration <= 0) throw new Flags.UsageException("--duration must be > 0");
        double progress = f.seconds("progress");
        if (progress <= 0) throw new Flags.UsageException("--progress must be > 0");
        return new LoadOptions(url,
                f.integer("concurrency", 1, 100_000),
                f.integer("wait", 0, 3_600_000),
                rate,
                duration,
                f.seconds("warmup"),
                f.integer("products", 1, 1_000_000),
                f.integer("users", 1, 1_000_000_000),
                f.longValue("seed"),
                f.string("db-url"),
                f.string("json"),
                progress,
                f.integer("timeout", 1, 3_600_000),
                threads.equals("virtual"),
                client);
    }

    public boolean jdkClient() {
        return client.equals("jdk");
    }

    public boolean nioClient() {
        return client.equals("nio");
    }

    public boolean fixedRate() {
        return rate > 0;
    }

    static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }
}
