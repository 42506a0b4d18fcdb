package tradebench.loadclient.verify;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import tradebench.loadclient.OrderMix;
import tradebench.loadclient.audit.Report.Failure;
import tradebench.loadclient.audit.Report;
import tradebench.loadclient.audit.SalesAudit;
import tradebench.loadclient.audit.SalesTable;
import tradebench.loadclient.audit.SentOrder;

/**
 * {@code loadclient verify}: checks a running variant against contract sections
 * 3 and 8 (docs/contract.md, docs/contract-details.md) before anyone benchmarks
 * it. Every check prints one line; the run fails when any check fails. It
 * assumes it is the only client of the variant while it runs (the stats deltas
 * count on it).
 */
public final class Verifier {

    /** Ids stay below 2^53 so JavaScript numbers hold them exactly (docs/contract-details.md, "Order ids"). */
    private static final long MAX_SAFE_ID = (1L << 53) - 1;
    /** Slack for "an id is at least the clock in microseconds": the service may sit on another clock tick. */
    private static final long CLOCK_SLACK_US = 1_000_000;
    private static final String[] STATS_COUNTERS = {"accepted", "rejected", "overloaded", "salesPersisted",
            "salesLastMinute", "persistenceFailures", "openOrders", "pendingOrders"};
    private static final String[] ENGINE_COUNTERS = {"engine", "accepted", "openOrders", "pendingOrders",
            "salesPersisted", "cycles", "persistenceFailures"};

    private final VerifyOptions options;
    private final PrintStream out;
    private final Report report;
    /** Users of this run start with it, so rows of earlier runs never look like ours. */
    private final String prefix;
    private final List<SentOrder> sent = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong overloaded = new AtomicLong();

    public Verifier(VerifyOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.report = new Report(out);
        this.prefix = "v" + Long.toString(Math.abs(new SplittableRandom(options.seed()).nextLong() % 2_176_782_336L), 36) + "-";
    }

    /** Runs every check; returns the failures (empty: the variant passed). */
    public List<Failure> run() {
        out.println("verify " + options.url() + " users " + prefix + "* products " + options.products()
                + " orders " + options.orders() + " seed " + options.seed());
        long runStartMs = System.currentTimeMillis();
        try (MarketClient c = new MarketClient(options.url());
             SalesTable sales = new SalesTable(options.dbUrl(), options.salesTable())) {
            if (checkHealth(c)) {
                runChecks(c, sales, runStartMs);
            }
        } catch (IOException e) {
            report.fail("http", "the service stopped answering: " + e);
        } catch (SQLException e) {
            report.fail("database", "cannot read " + options.salesTable() + " at " + redact(options.dbUrl()) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.fail("interrupted", "verify was interrupted");
        }
        report.summary();
        return report.failures();
    }

    private void runChecks(MarketClient c, SalesTable sales, long runStartMs)
            throws IOException, SQLException, InterruptedException {
        JsonNode statsAtStart = checkStats(c);
        placeCounterOrders(c);
        checkBadInputs(c);
        checkUnknownOrders(c);
        checkSellThenBuy(c, sales);
        List<SentOrder> random = randomPhase();
        if (sent.isEmpty()) return;
        long minId = sent.stream().mapToLong(SentOrder::id).min().orElse(0);
        long maxId = sent.stream().mapToLong(SentOrder::id).max().orElse(0);
        waitUntilQuiet(c, sales, minId, maxId);
        List<SalesTable.Row> rows = sales.since(runStartMs - 2_000, minId, maxId);
        Map<Long, SentOrder> byId = new HashMap<>();
        for (SentOrder o : sent) byId.put(o.id(), o);
        SalesAudit audit = new SalesAudit(byId, prefix, report);
        List<SalesTable.Row> ours = audit.audit(rows);
        reportAuditOk(ours.size(), rows.size());
        audit.checkNoCrossedProducts(random);
        checkOrderViews(c, audit, ours, random);
        checkIdOrder();
        checkStatsAfter(c, statsAtStart, ours, runStartMs);
    }

    // ---- health and stats ----

    private boolean checkHealth(MarketClient c) throws IOException {
        Answer a = c.get("/health");
        boolean ok = a.status() == 200 && isJson(a) && a.isJsonObject() && "up".equals(a.json().path("status").asText(null));
        if (ok) report.ok("health", "GET /health answers 200 {\"status\":\"up\"}");
        else report.fail("health", "expected 200 {\"status\":\"up\"} (application/json): " + a.describe());
        return ok;
    }

    private JsonNode stats(MarketClient c) throws IOException {
        Answer a = c.get("/stats");
        return a.status() == 200 && a.isJsonObject() ? a.json() : null;
    }

    private JsonNode checkStats(MarketClient c) throws IOException {
        Answer a = c.get("/stats");
        if (a.status() != 200 || !a.isJsonObject() || !isJson(a)) {
            report.fail("stats", "expected 200 with a JSON object: " + a.describe());
            return null;
        }
        JsonNode s = a.json();
        List<String> problems = new ArrayList<>();
        if (!s.path("variant").isTextual()) problems.add("variant is not a string");
        if (!isCount(s.path("uptimeMs"))) problems.add("uptimeMs is not an integer >= 0");
        for (String k : STATS_COUNTERS) if (!isCount(s.path(k))) problems.add(k + " is not an integer >= 0");
        JsonNode engines = s.path("engines");
        if (!engines.isArray() || engines.isEmpty()) {
            problems.add("engines is not a non-empty array");
        } else {
            for (JsonNode e : engines) {
                for (String k : ENGINE_COUNTERS) {
                    if (!isCount(e.path(k))) problems.add("engines[].%s is not an integer >= 0 in %s".formatted(k, e));
                }
            }
        }
        if (problems.isEmpty()) report.ok("stats", "GET /stats has every counter of docs/contract-details.md (" + engines.size() + " engines)");
        else report.fail("stats", String.join("; ", problems) + ": " + a.describe());
        return s;
    }

    /** {@code rows}: the SALES rows of the run's orders; the service stored at least those. */
    private void checkStatsAfter(MarketClient c, JsonNode before, List<SalesTable.Row> rows, long runStartMs) throws IOException {
        JsonNode after = stats(c);
        if (before == null || after == null) {
            report.fail("stats", "GET /stats unusable, stats deltas not checked");
            return;
        }
        long accepted = after.path("accepted").asLong() - before.path("accepted").asLong();
        report.expect(accepted == sent.size(), "stats-accepted", "accepted grew by " + accepted + " while this run got "
                + sent.size() + " 202 answers (is another client sending?)");
        long newRows = rows.stream().filter(r -> r.created() >= runStartMs).count();
        long persisted = after.path("salesPersisted").asLong() - before.path("salesPersisted").asLong();
        report.expect(persisted >= newRows, "stats-sales", "salesPersisted grew by " + persisted + " but "
                + newRows + " rows of the run's orders were stored since it started");
        report.expect(after.path("pendingOrders").asLong(-1) == 0, "stats-pending",
                "pendingOrders is " + after.path("pendingOrders") + " once the market is quiet");
        if (report.failureCount("stats-accepted") + report.failureCount("stats-sales") + report.failureCount("stats-pending") == 0) {
            report.ok("stats-deltas", "accepted +" + accepted + " (= the run's 202s), salesPersisted +" + persisted
                    + " (>= the run's " + newRows + " rows), pendingOrders 0");
        }
        if (after.path("persistenceFailures").asLong() > 0) {
            report.note("note: persistenceFailures = " + after.path("persistenceFailures") + " (retried failures, not a rule)");
        }
    }

    // ---- orders ----

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private SentOrder place(MarketClient c, String check, String method, boolean buy, String user, int product,
                            int quantity, String price, String extra) throws IOException {
        String target = (buy ? "/buy" : "/sell") + "?userId=" + MarketClient.enc(user) + "&productId=" + product
                + "&quantity=" + quantity + (price != null ? "&price=" + price : "") + extra;
        long wallUs = nowMicros();
        long t0 = System.nanoTime();
        Answer a = c.request(method, target);
        long t1 = System.nanoTime();
        return accepted(a, check, buy, user, product, quantity, price, t0, t1, wallUs);
    }

    private SentOrder placeForm(MarketClient c, String check, boolean buy, String user, int product, int quantity,
                                String price) throws IOException {
        String form = "userId=" + MarketClient.enc(user) + "&productId=" + product + "&quantity=" + quantity
                + (price != null ? "&price=" + price : "");
        long wallUs = nowMicros();
        long t0 = System.nanoTime();
        Answer a = c.postForm(buy ? "/buy" : "/sell", form);
        long t1 = System.nanoTime();
        return accepted(a, check, buy, user, product, quantity, price, t0, t1, wallUs);
    }

    /** Checks a 202 answer and records the order; null (and a failure, or a 503 counted) otherwise. */
    private SentOrder accepted(Answer a, String check, boolean buy, String user, int product, int quantity,
                               String price, long t0, long t1, long wallUs) {
        if (a.status() == 503) {
            checkOverloadAnswer(a);
            return null;
        }
        Long n = acceptedId(a, check, buy);
        if (n == null) return null;
        if (n <= 0 || n > MAX_SAFE_ID) report.fail("ids", "id " + n + " is not in 1..2^53-1: " + a.describe());
        if (n < wallUs - CLOCK_SLACK_US) {
            report.fail("ids", "id " + n + " is below the clock in microseconds (" + wallUs + ") at sending: " + a.describe());
        }
        SentOrder o = new SentOrder(n, buy, user, Integer.toString(product), quantity,
                price == null ? null : new BigDecimal(price), t0, t1);
        sent.add(o);
        return o;
    }

    /** A 503, counted: its body {"error": ...} and its Retry-After, as the contract's overload answer. */
    private void checkOverloadAnswer(Answer a) {
        overloaded.incrementAndGet();
        if (!isJson(a) || !a.isJsonObject() || !a.json().path("error").isTextual()
                || a.response().header("retry-after") == null) {
            report.fail("overload-answer", "a 503 needs {\"error\": ...} and Retry-After: " + a.describe());
        }
    }

    /** The id of a well-formed 202 of the side asked; null (and CHECK failed) for any other answer. */
    private Long acceptedId(Answer a, String check, boolean buy) {
        String side = buy ? "buy" : "sell";
        JsonNode id = a.isJsonObject() ? a.json().path("id") : null;
        boolean wellFormed = a.status() == 202 && isJson(a) && id != null && id.isIntegralNumber() && id.canConvertToLong()
                && side.equals(a.json().path("side").asText(null)) && "accepted".equals(a.json().path("status").asText(null));
        if (!wellFormed) {
            report.fail(check, "expected 202 {\"id\": N, \"side\": \"" + side + "\", \"status\": \"accepted\"}: " + a.describe());
            return null;
        }
        return id.asLong();
    }

    /**
     * Orders that would trade with any bad order that got into the market: a sell at the
     * highest valid price for the bad buys, a buy without limit for the bad sells.
     * They also prove the edges are accepted (quantity 1,000,000, price 1e9, an unknown extra parameter).
     */
    private void placeCounterOrders(MarketClient c) throws IOException {
        SentOrder sell = place(c, "valid-edges", "POST", false, prefix + "cs", options.badBuyProduct(), 1_000_000, "1000000000", "");
        SentOrder buy = place(c, "valid-edges", "POST", true, prefix + "cb", options.badSellProduct(), 1_000_000, null, "&foo=bar");
        if (sell != null && buy != null) {
            report.ok("valid-edges", "quantity 1000000, price 1000000000 and an unknown extra parameter are accepted");
        }
    }

    // ---- bad input ----

    private void checkBadInputs(MarketClient c) throws IOException {
        JsonNode before = stats(c);
        List<BadInputs.Case> cases = BadInputs.cases(prefix, options.products(), options.badBuyProduct(), options.badSellProduct());
        int failed = 0;
        for (BadInputs.Case k : cases) {
            if (!checkBadInput(c, k)) failed++;
        }
        if (failed == 0) report.ok("bad-input", cases.size() + " bad requests answered 4xx with a JSON error naming the problem");
        JsonNode after = stats(c);
        if (before != null && after != null) {
            long accepted = after.path("accepted").asLong() - before.path("accepted").asLong();
            long rejected = after.path("rejected").asLong() - before.path("rejected").asLong();
            long expected = BadInputs.rejectedOrders(cases);
            boolean ok = report.expect(accepted == 0, "bad-input-accepted",
                    "stats accepted grew by " + accepted + " during the bad-input phase (a bad order reached an engine)");
            ok &= report.expect(rejected >= expected, "bad-input-rejected",
                    "stats rejected grew by " + rejected + ", fewer than the " + expected + " bad orders answered 400");
            if (ok) report.ok("bad-input-stats", "accepted +0, rejected +" + rejected + " during the bad-input phase");
        }
    }

    private boolean checkBadInput(MarketClient c, BadInputs.Case k) throws IOException {
        Answer a = c.request(k.method(), k.target());
        String label = k.what() + ": ";
        if (a.status() >= 500) {
            report.fail("bad-input-5xx", label + "a server error instead of " + k.status() + ": " + a.describe());
            return false;
        }
        if (a.status() < 400) {
            report.fail("bad-input-accepted", label + "answered " + a.status() + " instead of " + k.status() + ": " + a.describe());
            if (a.status() == 202 && a.isJsonObject() && a.json().path("id").canConvertToLong()) {
                report.note("the refused-in-theory order got id " + a.json().path("id") + "; it may trade with the counter orders");
            }
            return false;
        }
        List<String> problems = new ArrayList<>();
        if (a.status() != k.status()) problems.add("status " + a.status() + " instead of " + k.status());
        if (!isJson(a)) problems.add("Content-Type " + a.response().header("content-type") + " is not application/json");
        String error = a.isJsonObject() && a.json().path("error").isTextual() ? a.json().path("error").asText() : null;
        if (error == null || error.isBlank()) problems.add("no {\"error\": \"...\"} body");
        else if (k.param() != null && !error.toLowerCase().contains(k.param().toLowerCase())) {
            problems.add("the error does not name " + k.param());
        }
        if (k.status() == 405 && a.status() == 405 && a.response().header("allow") == null) problems.add("405 without Allow");
        if (problems.isEmpty()) return true;
        report.fail("bad-input-answer", label + String.join("; ", problems) + ": " + a.describe());
        return false;
    }

    private void checkUnknownOrders(MarketClient c) throws IOException {
        boolean ok = true;
        for (String id : List.of("9000000000000000", "1")) {
            Answer a = c.get("/orders/" + id);
            ok &= report.expect(a.status() == 404 && isJson(a) && a.isJsonObject() && a.json().path("error").isTextual(),
                    "orders-unknown", "an order never accepted must be 404 {\"error\": ...}: " + a.describe());
        }
        if (ok) report.ok("orders-unknown", "GET /orders/{id} of an order never accepted answers 404");
    }

    // ---- one sale, exactly ----

    /**
     * A sell of 5 at 0.01 then a buy of 3 with maxPrice 0.01 on a product nothing else
     * trades on: one sale of 3 at 0.01, the buy filled, the sell open with 2 left.
     * A second buy (sent as a form body) then fills the sell, so no order is left behind
     * to trade with the next run's.
     */
    private void checkSellThenBuy(MarketClient c, SalesTable sales) throws IOException, SQLException, InterruptedException {
        int product = options.exactProduct();
        SentOrder sell = place(c, "sale-exact", "POST", false, prefix + "es", product, 5, "0.01", "");
        if (sell == null) return;
        Answer view = c.get("/orders/" + sell.id());
        checkOrderView(view, sell, "open", 5, 0);
        SentOrder buy = place(c, "sale-exact", "POST", true, prefix + "eb", product, 3, "0.01", "");
        if (buy == null) return;
        Answer filled = pollStatus(c, buy.id(), "filled");
        if (filled == null) return;
        if (!checkExactSale(c, sales, sell, buy, filled)) return;

        SentOrder rest = placeForm(c, "form-body", true, prefix + "eb2", product, 2, "0.01");
        if (rest == null) return;
        Answer sellFilled = pollStatus(c, sell.id(), "filled");
        if (sellFilled != null && checkOrderView(sellFilled, sell, "filled", 0, 2)) {
            report.ok("form-body", "a POST with a form body is read; the sell is filled by it");
        }
    }

    /**
     * The buy of 3 FILLED against the sell of 5: one SALES row with the exact names, product, price, quantity and
     * ids, its fill in the buy's view, the sell open with 2 left. False when the buy has not exactly one row.
     */
    private boolean checkExactSale(MarketClient c, SalesTable sales, SentOrder sell, SentOrder buy, Answer filled)
            throws IOException, SQLException {
        boolean ok = checkOrderView(filled, buy, "filled", 0, 1);
        List<SalesTable.Row> rows = sales.ofOrder(buy.id());
        if (rows.size() != 1) {
            report.fail("sale-exact", "buy " + buy.id() + " is filled but has " + rows.size() + " SALES rows: " + rows);
            return false;
        }
        SalesTable.Row r = rows.get(0);
        ok &= report.expect(r.buyer().equals(buy.userId()) && r.seller().equals(sell.userId()) && r.productId().equals(sell.productId())
                        && r.price().compareTo(new BigDecimal("0.01")) == 0 && r.quantity() == 3
                        && r.poId() == buy.id() && r.soId() == sell.id(), "sale-exact",
                "expected buyer " + buy.userId() + " seller " + sell.userId() + " product " + sell.productId()
                        + " price 0.01 quantity 3 PO " + buy.id() + " SO " + sell.id() + ", got " + r);
        ok &= checkFillMatches(filled.json().path("fills").path(0), r, "buy " + buy.id());
        Answer sellView = c.get("/orders/" + sell.id());
        ok &= checkOrderView(sellView, sell, "open", 2, 1);
        if (ok) report.ok("sale-exact", "sell 5 @ 0.01 then buy 3: one SALES row with the exact names, product, price, quantity and ids; /orders shows filled / open");
        return true;
    }

    /** Polls GET /orders/{id} until the status is reached; null (and a failure) after --poll-timeout. */
    private Answer pollStatus(MarketClient c, long id, String status) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + (long) (options.pollTimeoutS() * 1e9);
        Answer a;
        do {
            a = c.get("/orders/" + id);
            if (a.status() == 200 && a.isJsonObject() && status.equals(a.json().path("status").asText(null))) return a;
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        report.fail("orders-status", "order " + id + " not '" + status + "' within " + options.pollTimeoutS() + " s: " + a.describe());
        return null;
    }

    /** The view of docs/contract-details.md: id, side, userId, productId, quantity, remaining, status, fills. */
    private boolean checkOrderView(Answer a, SentOrder o, String status, long remaining, int fills) {
        List<String> problems = new ArrayList<>();
        if (a.status() != 200 || !a.isJsonObject() || !isJson(a)) {
            report.fail("orders-view", "GET /orders/" + o.id() + ": expected 200 with a JSON object: " + a.describe());
            return false;
        }
        JsonNode j = a.json();
        if (j.path("id").asLong() != o.id()) problems.add("id");
        if (!o.side().equals(j.path("side").asText(null))) problems.add("side (expected " + o.side() + ")");
        if (!o.userId().equals(j.path("userId").asText(null))) problems.add("userId (expected " + o.userId() + ")");
        if (!o.productId().equals(j.path("productId").asText(null))) problems.add("productId (expected " + o.productId() + ")");
        if (j.path("quantity").asLong(-1) != o.quantity()) problems.add("quantity (expected " + o.quantity() + ")");
        if (j.path("remaining").asLong(-1) != remaining) problems.add("remaining (expected " + remaining + ")");
        if (!status.equals(j.path("status").asText(null))) problems.add("status (expected " + status + ")");
        if (!j.path("fills").isArray() || j.path("fills").size() != fills) problems.add("fills (expected " + fills + ")");
        if (problems.isEmpty()) return true;
        report.fail("orders-view", "GET /orders/" + o.id() + ": wrong " + String.join(", ", problems) + ": " + a.describe());
        return false;
    }

    private boolean checkFillMatches(JsonNode f, SalesTable.Row r, String of) {
        boolean ok = f.path("saleId").asLong() == r.id() && r.buyer().equals(f.path("buyer").asText(null))
                && r.seller().equals(f.path("seller").asText(null)) && r.productId().equals(f.path("productId").asText(null))
                && f.path("price").isNumber() && f.path("price").decimalValue().compareTo(r.price()) == 0
                && f.path("quantity").asLong() == r.quantity() && f.path("poId").asLong() == r.poId()
                && f.path("soId").asLong() == r.soId() && f.path("created").asLong() == r.created();
        return report.expect(ok, "orders-fills", of + ": the fill " + f + " does not match its " + r);
    }

    // ---- random phase and audit ----

    /** A few thousand random orders from many connections, within a few seconds and far below the inbox limit. */
    private List<SentOrder> randomPhase() throws InterruptedException {
        int connections = Math.min(options.connections(), Math.max(1, options.orders()));
        int before = sent.size();
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        List<Future<List<SentOrder>>> parts = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            int share = options.orders() / connections + (i < options.orders() % connections ? 1 : 0);
            SplittableRandom rnd = new SplittableRandom(options.seed() + i);
            parts.add(pool.submit(() -> sendRandom(share, rnd)));
        }
        List<SentOrder> random = new ArrayList<>();
        for (Future<List<SentOrder>> f : parts) {
            try {
                random.addAll(f.get());
            } catch (java.util.concurrent.ExecutionException e) {
                report.fail("random-orders", "a connection failed: " + e.getCause());
            }
        }
        pool.shutdown();
        double secs = (System.nanoTime() - t0) / 1e9;
        int failures = report.failureCount("random-orders");
        if (failures == 0) {
            report.ok("random-orders", String.format("%d random orders on %d connections in %.1f s: %d accepted, %d overloaded (503)",
                    options.orders(), connections, secs, sent.size() - before, overloaded.get()));
        }
        return random;
    }

    private List<SentOrder> sendRandom(int count, SplittableRandom rnd) throws IOException {
        OrderMix mix = new OrderMix(options.randomProducts(), 50, prefix);
        List<SentOrder> mine = new ArrayList<>(count);
        try (MarketClient c = new MarketClient(options.url())) {
            for (int i = 0; i < count; i++) {
                OrderMix.Order o = mix.next(rnd);
                // contract section 3: GET is accepted too (the 2014 clients used it); one order in ten goes that way.
                String method = rnd.nextInt(10) == 0 ? "GET" : "POST";
                SentOrder s = place(c, "random-orders", method, o.buy(), o.userId(), o.productId(), o.quantity(),
                        o.priceCents() < 0 ? null : OrderMix.formatCents(o.priceCents()), "");
                if (s != null) mine.add(s);
            }
        }
        return mine;
    }

    /** Quiet: nothing pending, and neither SALES nor salesPersisted moved for half a second. */
    private void waitUntilQuiet(MarketClient c, SalesTable sales, long minId, long maxId)
            throws IOException, SQLException, InterruptedException {
        long t0 = System.nanoTime();
        long deadline = t0 + (long) (options.quietTimeoutS() * 1e9);
        long lastRows = -1;
        long lastPersisted = -1;
        while (true) {
            JsonNode s = stats(c);
            long pending = s == null ? -1 : s.path("pendingOrders").asLong(-1);
            long persisted = s == null ? -1 : s.path("salesPersisted").asLong(-1);
            long rows = sales.countForRange(minId, maxId);
            if (pending == 0 && rows == lastRows && persisted == lastPersisted) {
                report.ok("quiet", String.format("market quiet after %.1f s (%d PO/SO references to the run's ids in SALES)",
                        (System.nanoTime() - t0) / 1e9, rows));
                return;
            }
            if (System.nanoTime() > deadline) {
                report.fail("quiet", "the market did not go quiet within " + options.quietTimeoutS()
                        + " s (pendingOrders " + pending + ", SALES rows still moving); auditing anyway");
                return;
            }
            lastRows = rows;
            lastPersisted = persisted;
            Thread.sleep(500);
        }
    }

    private void reportAuditOk(int concerned, int read) {
        String[] rules = {"sale-empty-name", "sale-duplicate-pair", "sale-unaccepted-order", "sale-quantity", "sale-price",
                "sale-side", "sale-names", "sale-product", "sale-overfill"};
        int failed = 0;
        for (String r : rules) failed += report.failureCount(r);
        if (failed == 0) {
            report.ok("sales-audit", concerned + " SALES rows of the run (of " + read + " read): no order over-filled, every price"
                    + " the seller's, names and products right, no (PO, SO) pair twice, no refused order stored");
        }
    }

    /** /orders/{id} agrees with SALES for a sample of the run's orders: status, remaining, fills. */
    private void checkOrderViews(MarketClient c, SalesAudit audit, List<SalesTable.Row> rows, List<SentOrder> random)
            throws IOException {
        Map<Long, Integer> fillCount = new HashMap<>();
        for (SalesTable.Row r : rows) {
            fillCount.merge(r.poId(), 1, Integer::sum);
            if (r.soId() != r.poId()) fillCount.merge(r.soId(), 1, Integer::sum);
        }
        List<SentOrder> sample = new ArrayList<>(random);
        Collections.shuffle(sample, new java.util.Random(options.seed()));
        sample = sample.subList(0, Math.min(200, sample.size()));
        int before = report.failureCount("orders-view");
        for (SentOrder o : sample) {
            long remaining = audit.remaining(o);
            Answer a = c.get("/orders/" + o.id());
            checkOrderView(a, o, remaining == 0 ? "filled" : "open", Math.max(0, remaining), fillCount.getOrDefault(o.id(), 0));
        }
        if (report.failureCount("orders-view") == before) {
            report.ok("orders-view", sample.size() + " random orders: /orders/{id} status, remaining and fills agree with SALES");
        }
    }

    /**
     * Ids increase in the order of acceptance: an order sent after another's answer
     * came back (on any connection) must have the larger id.
     */
    private void checkIdOrder() {
        List<SentOrder> all = new ArrayList<>(sent);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        int duplicates = 0;
        for (SentOrder o : all) {
            if (!seen.add(o.id())) {
                duplicates++;
                report.fail("ids", "id " + o.id() + " given to two orders");
            }
        }
        int violations = outOfOrder(all);
        if (duplicates == 0 && violations == 0 && report.failureCount("ids") == 0) {
            report.ok("ids", all.size() + " ids unique, increasing in the order of acceptance, >= the clock in microseconds");
        }
    }

    /** The orders of ALL whose id is not above every id accepted before they were sent, each failed; their count. */
    private int outOfOrder(List<SentOrder> all) {
        List<SentOrder> byAnswer = new ArrayList<>(all);
        byAnswer.sort(Comparator.comparingLong(SentOrder::answeredNs));
        long[] answered = new long[byAnswer.size()];
        SentOrder[] maxSoFar = new SentOrder[byAnswer.size()];
        for (int i = 0; i < byAnswer.size(); i++) {
            answered[i] = byAnswer.get(i).answeredNs();
            SentOrder prev = i == 0 ? null : maxSoFar[i - 1];
            maxSoFar[i] = prev == null || byAnswer.get(i).id() > prev.id() ? byAnswer.get(i) : prev;
        }
        int violations = 0;
        for (SentOrder o : all) {
            int found = lastBefore(answered, o.sentNs());
            if (found >= 0 && maxSoFar[found].id() >= o.id()) {
                violations++;
                report.fail("ids", "order " + o.id() + " was sent after order " + maxSoFar[found].id()
                        + " had been accepted, yet its id is not larger");
            }
        }
        return violations;
    }

    /** The index of the last of the sorted ANSWERED instants strictly before NS; -1 when none is. */
    static int lastBefore(long[] answered, long ns) {
        int lo = 0;
        int hi = answered.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (answered[mid] < ns) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    // ---- helpers ----

    private static boolean isJson(Answer a) {
        return "application/json".equals(a.response().mediaType());
    }

    private static boolean isCount(JsonNode n) {
        return n.isIntegralNumber() && n.asLong() >= 0;
    }

    static String redact(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)password=[^&]*", "password=***");
    }
}
