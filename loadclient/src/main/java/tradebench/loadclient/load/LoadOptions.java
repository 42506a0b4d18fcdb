package tradebench.loadclient.load;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import tradebench.loadclient.Flags;
import tradebench.loadclient.Flags.Spec;

/**
 * The settings of one {@code load} run (contract section 6 plus the fixed-rate
 * mode, the steady-state warm-up, several base URLs and the error budget).
 *
 * @param urls        the base URLs of {@code --url}; connection i uses {@code urls[i mod n]}
 * @param urlText     {@code --url} as given (the comma-separated list), for the JSON and the summary
 * @param warmupAuto  {@code --warmup auto}: warm up until two consecutive windows agree
 * @param warmupS     {@code --warmup S}: fixed warm-up seconds (0 with {@code auto})
 */
public record LoadOptions(
        List<URI> urls,
        String urlText,
        int concurrency,
        int waitMs,
        double rate,
        double durationS,
        boolean warmupAuto,
        double warmupS,
        double steadyWindowS,
        double steadyTolerance,
        double warmupMaxS,
        int products,
        int users,
        long seed,
        String dbUrl,
        String jsonFile,
        String histogramFile,
        double maxErrorRate,
        double progressS,
        int timeoutMs,
        boolean virtualThreads,
        String client) {

    public static final List<Spec> FLAGS = List.of(
            new Spec("url", "http://127.0.0.1:3000", "base URL of the variant; a comma-separated list spreads the connections round-robin"),
            new Spec("concurrency", "80", "workers, one keep-alive connection each"),
            new Spec("wait", "60", "closed loop: pause in ms after each answer"),
            new Spec("rate", null, "fixed-rate mode: orders/s over all connections (--wait is then ignored)"),
            new Spec("duration", "60", "measured seconds"),
            new Spec("warmup", "10", "seconds of load before the measured window (discarded), or auto: until steady"),
            new Spec("steady-window", "5", "--warmup auto: seconds per warm-up window"),
            new Spec("steady-tolerance", "0.05", "--warmup auto: steady when two consecutive windows' orders/s differ by less than this fraction"),
            new Spec("warmup-max", "120", "--warmup auto: start the measured window after this many seconds even when not steady"),
            new Spec("products", "100", "products 0..N-1"),
            new Spec("users", "1000", "users b0..b<N-1> and s0..s<N-1>"),
            new Spec("seed", "42", "random seed (worker i uses seed+i)"),
            new Spec("db-url", null, "JDBC URL of the variant's database: count SALES rows of the window"),
            new Spec("json", null, "write every figure as JSON to this file"),
            new Spec("histogram", null, "write the window's latency histogram (HdrHistogram percentile distribution, ms) to this file"),
            new Spec("max-error-rate", "0.01", "exit 3 when (other 4xx + other 5xx + other statuses + I/O errors) / requests exceeds this"),
            new Spec("progress", "5", "seconds between progress lines"),
            new Spec("timeout", "30000", "ms to wait for one answer before counting an I/O error"),
            new Spec("threads", "virtual", "worker threads: virtual or platform"),
            new Spec("client", "nio", "HTTP client: nio (event loops, one per core), blocking (a thread per connection) or jdk (java.net.http, for comparison)"));

    public static LoadOptions parse(String[] args) {
        Flags f = Flags.parse("load", FLAGS, args);
        String urlText = f.required("url");
        List<URI> urls = new ArrayList<>();
        for (String part : urlText.split(",", -1)) {
            String s = part.trim();
            if (s.isEmpty()) throw new Flags.UsageException("--url has an empty entry: " + urlText);
            URI url;
            try {
                url = URI.create(stripSlash(s));
            } catch (IllegalArgumentException e) {
                throw new Flags.UsageException("--url is not a URL: " + s);
            }
            if (url.getHost() == null) throw new Flags.UsageException("--url needs a host: " + url);
            urls.add(url);
        }
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
        boolean auto = f.string("warmup").equals("auto");
        double warmup = auto ? 0 : f.seconds("warmup");
        double steadyWindow = f.positiveNumber("steady-window");
        double tolerance = f.positiveNumber("steady-tolerance");
        double warmupMax = f.seconds("warmup-max");
        double maxErrorRate = f.seconds("max-error-rate");   // a number >= 0
        return new LoadOptions(List.copyOf(urls),
                urlText,
                f.integer("concurrency", 1, 100_000),
                f.integer("wait", 0, 3_600_000),
                rate,
                duration,
                auto,
                warmup,
                steadyWindow,
                tolerance,
                warmupMax,
                f.integer("products", 1, 1_000_000),
                f.integer("users", 1, 1_000_000_000),
                f.longValue("seed"),
                f.string("db-url"),
                f.string("json"),
                f.string("histogram"),
                maxErrorRate,
                progress,
                f.integer("timeout", 1, 3_600_000),
                threads.equals("virtual"),
                client);
    }

    /** The first (or only) base URL. */
    public URI url() {
        return urls.get(0);
    }

    /** The base URL of connection {@code index}: round-robin over {@code --url}. */
    public URI url(int index) {
        return urls.get(index % urls.size());
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
