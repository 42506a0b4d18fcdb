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

    @Option(names = "--view-clients", paramLabel = "N", defaultValue = "0",
            description = "order-view clients beside the orders, each a keep-alive connection sending GET /orders/{id}") private int viewClients;

    @Option(names = "--view-pause", paramLabel = "MIN-MAX", defaultValue = "500-1500",
            description = "view clients: pause in ms after each answer, uniform in MIN..MAX (ignored with --view-rate)") private String viewPauseText;

    @Option(names = "--view-rate", paramLabel = "R", description = "views at a fixed rate: views/s over all view clients") private Double viewRate;

    @Option(names = "--view-timeout", paramLabel = "MS", description = "ms to wait for a view's answer (default: --timeout)") private Integer viewTimeoutMs;

    @Option(names = "--phases", paramLabel = "NAME:S[,NAME:S...]",
            description = "consecutive named phases of the measured window (its length is their sum)") private String phasesText;

    @Option(names = "--window-at", paramLabel = "EPOCH_MS",
            description = "the measured window starts at this wall-clock time (ms since the epoch); the warm-up lasts until then") private Long windowAtMs;

    @Option(names = "--orders-out", paramLabel = "FILE",
            description = "write every accepted order to this file (the reliability audit's format)") private String ordersOut;

    @Option(names = "--user-prefix", paramLabel = "P", defaultValue = "",
            description = "prefix of the users' names (b<k> and s<k> behind it)") private String userPrefix;

    private List<URI> urls;
    private int viewPauseMinMs;
    private int viewPauseMaxMs;
    private List<Phase> phases;

    /** How far ahead {@code --window-at} may lie: a typo in an epoch would otherwise hold a run for days. */
    static final long MAX_WINDOW_AT_AHEAD_MS = 600_000;

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
        checkViews();
        checkPhases();
        checkWindowAt();
        if (!userPrefix.matches("[A-Za-z0-9_.-]{0,20}")) throw usage("--user-prefix must be 0..20 of [A-Za-z0-9_.-]: " + userPrefix);
        if (detailed() && window.durationS() * 1000 > Samples.MAX_WINDOW_MS) {
            throw usage("the measured window is at most " + Samples.MAX_WINDOW_MS / 1000 + " s with --view-clients or --phases");
        }
    }

    private void checkViews() {
        range("--view-clients", viewClients, 0, 100_000);
        String[] bounds = viewPauseText.split("-", -1);
        try {
            if (bounds.length != 2) throw new NumberFormatException();
            viewPauseMinMs = Integer.parseInt(bounds[0].trim());
            viewPauseMaxMs = Integer.parseInt(bounds[1].trim());
        } catch (NumberFormatException e) {
            throw usage("--view-pause must be MIN-MAX in ms, e.g. 500-1500: " + viewPauseText);
        }
        range("--view-pause's MIN", viewPauseMinMs, 0, 3_600_000);
        range("--view-pause's MAX", viewPauseMaxMs, viewPauseMinMs, 3_600_000);
        if (viewRate != null) {
            positive("--view-rate", viewRate);
            if (viewClients == 0) throw usage("--view-rate needs --view-clients > 0");
        }
        if (viewTimeoutMs != null) range("--view-timeout", viewTimeoutMs, 1, 3_600_000);
    }

    private void checkPhases() {
        if (phasesText == null) return;
        String[] problem = new String[1];
        phases = Phase.parse(phasesText, problem);
        if (phases == null) throw usage("--phases: " + problem[0]);
        double seconds = phases.get(phases.size() - 1).endMs() / 1000.0;
        if (window.durationGiven(this) && Math.abs(window.durationS() - seconds) > 1e-9) {
            throw usage("--duration " + window.durationS() + " is not the phases' sum " + seconds + " s (give one of them)");
        }
        window.lastFor(seconds);
    }

    private void checkWindowAt() {
        if (windowAtMs == null) return;
        if (window.warmupGiven(this)) throw usage("--window-at sets the warm-up: give --warmup or --window-at, not both");
        long now = System.currentTimeMillis();
        if (windowAtMs <= now) throw usage("--window-at " + windowAtMs + " is in the past (now " + now + ")");
        if (windowAtMs > now + MAX_WINDOW_AT_AHEAD_MS) {
            throw usage("--window-at " + windowAtMs + " is more than 10 minutes ahead (now " + now + ")");
        }
        window.warmUpFor((windowAtMs - now) / 1000.0);
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

    public int viewClients() {
        return viewClients;
    }

    int viewPauseMinMs() {
        return viewPauseMinMs;
    }

    int viewPauseMaxMs() {
        return viewPauseMaxMs;
    }

    boolean viewFixedRate() {
        return viewRate != null;
    }

    /** Views/s of the views' fixed rate; 0 in their closed loop. */
    double viewRate() {
        return viewRate == null ? 0 : viewRate;
    }

    int viewTimeoutMs() {
        return viewTimeoutMs == null ? timeoutMs : viewTimeoutMs;
    }

    /** The phases of {@code --phases}; empty without it. */
    List<Phase> phases() {
        return phases == null ? List.of() : phases;
    }

    boolean phased() {
        return phases != null;
    }

    /** The wall-clock start of the window of {@code --window-at}; null without it. */
    Long windowAtMs() {
        return windowAtMs;
    }

    String ordersOut() {
        return ordersOut;
    }

    String userPrefix() {
        return userPrefix;
    }

    /** Figures per request type, per phase and per second: with views or phases only, so a plain run stays as it was. */
    boolean detailed() {
        return viewClients > 0 || phases != null;
    }

    /** Whether the orders' 202 bodies are read for their ids: the views ask for them, the order file lists them. */
    boolean needsOrderIds() {
        return viewClients > 0 || ordersOut != null;
    }
}
