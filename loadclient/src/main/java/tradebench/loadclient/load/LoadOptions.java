package tradebench.loadclient.load;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import tradebench.loadclient.CommandOptions;
import tradebench.loadclient.MeasuredWindow;

/**
 * {@code loadclient load}: the settings of one run (contract section 6 plus the fixed-rate
 * mode, the steady-state warm-up, several base URLs and the error budget).
 * {@link #urls()} are the base URLs of {@code --url}: connection i uses {@code urls[i mod n]};
 * {@link #window()} the measured window and its warm-up.
 */
@Command(name = "load", sortOptions = false, showDefaultValues = true, defaultValueProvider = LoadOptions.WindowDefaults.class,
        description = "contract section 6: closed loop by default, fixed rate with --rate")
public final class LoadOptions extends CommandOptions {

    @Option(names = "--url", paramLabel = "URL[,URL...]", defaultValue = "http://127.0.0.1:3000",
            description = "base URL of the variant; a comma-separated list spreads the connections round-robin")
    private String urlText;

    @Option(names = "--concurrency", paramLabel = "N", defaultValue = "80", description = "workers, one keep-alive connection each") private int concurrency;

    @Option(names = "--wait", paramLabel = "MS", defaultValue = "60", description = "closed loop: pause in ms after each answer") private int waitMs;

    @Option(names = "--rate", paramLabel = "R", description = "fixed-rate mode: orders/s over all connections (--wait is then ignored)") private Double rate;

    @Mixin
    private MeasuredWindow window;

    @Option(names = "--products", paramLabel = "N", defaultValue = "100", description = "products 0..N-1") private int products;

    @Option(names = "--users", paramLabel = "N", defaultValue = "1000", description = "users b0..b<N-1> and s0..s<N-1>") private int users;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "random seed (worker i uses seed+i)") private long seed;

    @Option(names = "--db-url", paramLabel = "JDBC-URL", description = "JDBC URL of the variant's database: count SALES rows of the window") private String dbUrl;

    @Option(names = "--json", paramLabel = "FILE", description = "write every figure as JSON to this file") private String jsonFile;

    @Option(names = "--histogram", paramLabel = "FILE",
            description = "write the window's latency histogram (HdrHistogram percentile distribution, ms) to this file") private String histogramFile;

    @Option(names = "--max-error-rate", paramLabel = "F", defaultValue = "0.01",
            description = "exit 3 when (other 4xx + other 5xx + other statuses + I/O errors) / requests exceeds this") private double maxErrorRate;

    @Option(names = "--timeout", paramLabel = "MS", defaultValue = "30000", description = "ms to wait for one answer before counting an I/O error") private int timeoutMs;

    @Option(names = "--client", paramLabel = "nio|blocking", defaultValue = "nio",
            description = "HTTP client: nio (event loops, one per core) or blocking (a thread per connection)") private String client;

    @Option(names = "--threads", paramLabel = "virtual|platform", defaultValue = "virtual",
            description = "--client blocking: worker threads, virtual or platform") private String threads;

    private List<URI> urls;

    /** {@code --duration 60}, {@code --warmup 10}, {@code --warmup-max 120}. */
    public static final class WindowDefaults extends MeasuredWindow.Defaults {
        public WindowDefaults() {
            super("60", "10", "120");
        }
    }

    /** The options of {@code args} as {@code loadclient load} reads them; a mistake throws picocli's ParameterException. */
    public static LoadOptions parse(String... args) {
        return parse(new LoadOptions(), args);
    }

    @Override
    protected void check() {
        nonEmpty("--url", urlText);
        List<URI> list = new ArrayList<>();
        for (String part : urlText.split(",", -1)) {
            String s = part.trim();
            if (s.isEmpty()) throw usage("--url has an empty entry: " + urlText);
            list.add(baseUrl("--url", s));
        }
        urls = List.copyOf(list);
        if (!threads.equals("platform") && !threads.equals("virtual")) {
            throw usage("--threads must be platform or virtual: " + threads);
        }
        if (!client.equals("nio") && !client.equals("blocking")) throw usage("--client must be nio or blocking: " + client);
        if (rate != null) positive("--rate", rate);
        window.check(this);
        seconds("--max-error-rate", maxErrorRate);   // a number >= 0
        range("--concurrency", concurrency, 1, 100_000);
        range("--wait", waitMs, 0, 3_600_000);
        range("--products", products, 1, 1_000_000);
        range("--users", users, 1, 1_000_000_000);
        range("--timeout", timeoutMs, 1, 3_600_000);
    }

    public List<URI> urls() {
        return urls;
    }

    /** {@code --url} as given (the comma-separated list), for the JSON and the summary. */
    public String urlText() {
        return urlText;
    }

    /** The first (or only) base URL. */
    public URI url() {
        return urls.get(0);
    }

    /** The base URL of connection {@code index}: round-robin over {@code --url}. */
    public URI url(int index) {
        return urls.get(index % urls.size());
    }

    public int concurrency() {
        return concurrency;
    }

    public int waitMs() {
        return waitMs;
    }

    /** Orders/s of the fixed-rate mode; 0 in the closed loop. */
    public double rate() {
        return rate == null ? 0 : rate;
    }

    public boolean fixedRate() {
        return rate != null;
    }

    /** How long the run measures, and its warm-up. */
    public MeasuredWindow window() {
        return window;
    }

    public int products() {
        return products;
    }

    public int users() {
        return users;
    }

    public long seed() {
        return seed;
    }

    public String dbUrl() {
        return dbUrl;
    }

    public String jsonFile() {
        return jsonFile;
    }

    public String histogramFile() {
        return histogramFile;
    }

    public double maxErrorRate() {
        return maxErrorRate;
    }

    public int timeoutMs() {
        return timeoutMs;
    }

    public boolean virtualThreads() {
        return threads.equals("virtual");
    }

    public boolean nioClient() {
        return client.equals("nio");
    }
}
