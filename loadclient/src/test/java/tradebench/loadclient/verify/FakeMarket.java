package tradebench.loadclient.verify;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A small market that keeps contract sections 3 and 8 (docs/contract.md,
 * docs/contract-details.md; one engine, a cycle every few ms, SALES rows over
 * JDBC), and that can be told to break one rule at a time so the tests can see
 * {@code verify} catch it.
 */
public final class FakeMarket implements AutoCloseable {

    /** One broken rule each. */
    public enum Breakage {
        BAD_INPUT_500,          // quantity 0 answered 500
        BAD_INPUT_ACCEPTED,     // a price with 3 decimals accepted (202)
        BAD_INPUT_STORED,       // quantity 0 answered 400, but the order goes to the market as quantity 1
        ERROR_NOT_JSON,         // 400 answers in text/plain
        WRONG_PRICE,            // sales at the seller's price + 0.01
        OVERFILL,               // a sale takes the buy's whole remainder, even beyond the sell's
        DUPLICATE_PAIR,         // every sale stored twice
        IDS_NOT_INCREASING,     // ids count down
        CROSSED_MARKET,         // product 0 never trades
        WRONG_NAMES,            // buyer and seller swapped in SALES
        UNKNOWN_ORDER_200,      // /orders/{never accepted} answers 200 "unknown"
        STATS_INCOMPLETE,       // /stats without pendingOrders
        HEALTH_DOWN,            // /health answers 503
        OVERLOAD_BARE,          // every 10th order refused 503 without Retry-After
        ORDERS_HANG,            // once hangOrders() was called, an order waits 3 s for its answer
        SALE_NOT_STORED         // every 20th sale counted as stored, its row never written (a commit lost in a crash)
    }

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern NATURAL = Pattern.compile("0|[1-9][0-9]{0,8}");
    private static final Pattern PRICE = Pattern.compile("(0|[1-9][0-9]{0,9})(\\.[0-9]{1,2})?");
    private static final BigDecimal MAX_PRICE = new BigDecimal("1000000000");

    final class Order {
        final long id;
        final boolean buy;
        final String userId;
        final int product;
        final int quantity;
        final BigDecimal price;   // sell price or maxPrice; null = no limit
        long remaining;           // engine thread
        long storedQuantity;      // what SALES holds of it, under the order's lock
        final List<Map<String, Object>> fills = new ArrayList<>();

        Order(long id, boolean buy, String userId, int product, int quantity, BigDecimal price) {
            this.id = id;
            this.buy = buy;
            this.userId = userId;
            this.product = product;
            this.quantity = quantity;
            this.price = price;
            this.remaining = quantity;
        }
    }

    private final Set<Breakage> broken;
    private final int products;
    private final String jdbcUrl;
    private final String table;
    private final HttpServer server;
    private final ScheduledExecutorService engine = Executors.newSingleThreadScheduledExecutor();
    private final ConcurrentLinkedQueue<Order> inbox = new ConcurrentLinkedQueue<>();
    private final Map<Long, Order> orders = new ConcurrentHashMap<>();
    private final List<Order> market = new ArrayList<>();   // engine thread only
    private final AtomicLong lastId = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong salesPersisted = new AtomicLong();
    private final AtomicLong cycles = new AtomicLong();
    /** The number of the last cycle that found no new order and made no sale. */
    private final AtomicLong lastQuietCycle = new AtomicLong(-1);
    private final AtomicLong rejectedOverload = new AtomicLong();
    private final long startMs = System.currentTimeMillis();
    private volatile boolean hanging;
    private Connection db;

    public FakeMarket(int products, String jdbcUrl, String table, Breakage... broken) throws IOException, SQLException {
        this.broken = broken.length == 0 ? EnumSet.noneOf(Breakage.class) : EnumSet.of(broken[0], broken);
        this.products = products;
        this.jdbcUrl = jdbcUrl;
        this.table = table;
        this.db = DriverManager.getConnection(jdbcUrl);
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.start();
        engine.scheduleWithFixedDelay(this::cycle, 3, 3, TimeUnit.MILLISECONDS);
    }

    /** ORDERS_HANG: from now on, every order waits 3 s before it is answered. */
    public void hangOrders() {
        hanging = true;
    }

    /** Orders answered 202 so far. */
    public long accepted() {
        return accepted.get();
    }

    /** Cycles run so far. */
    public long cycles() {
        return cycles.get();
    }

    /**
     * True once a cycle after cycle {@code since} found no new order and made no sale: a cycle
     * that changes nothing leaves nothing for the next, so until more orders arrive the market
     * is done trading and SALES holds all it will.
     */
    public boolean quietAfter(long since) {
        return lastQuietCycle.get() > since;
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    // ---- HTTP ----

    private void handle(HttpExchange ex) throws IOException {
        try {
            route(ex);
        } catch (Exception e) {
            send(ex, 500, Map.of("error", "internal: " + e));
        } finally {
            ex.close();
        }
    }

    private void route(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        String method = ex.getRequestMethod();
        boolean order = path.equals("/buy") || path.equals("/sell");
        boolean getOnly = path.equals("/stats") || path.equals("/health") || path.matches("/orders/[^/]*");
        if (!order && !getOnly) {
            send(ex, 404, Map.of("error", "not found: " + path));
            return;
        }
        boolean allowed = order ? method.equals("GET") || method.equals("POST") : method.equals("GET");
        if (!allowed) {
            ex.getResponseHeaders().set("Allow", order ? "GET, POST" : "GET");
            send(ex, 405, Map.of("error", "method not allowed: " + method + " " + path));
            return;
        }
        if (order) placeOrder(ex, path.equals("/buy"));
        else if (path.equals("/stats")) send(ex, 200, stats());
        else if (path.equals("/health")) {
            if (broken.contains(Breakage.HEALTH_DOWN)) send(ex, 503, Map.of("status", "down", "error", "database unreachable"));
            else send(ex, 200, Map.of("status", "up"));
        } else orderView(ex, path.substring("/orders/".length()));
    }

    private void placeOrder(HttpExchange ex, boolean buy) throws IOException {
        Map<String, List<String>> params = new LinkedHashMap<>();
        parse(ex.getRequestURI().getRawQuery(), params);
        String ct = ex.getRequestHeaders().getFirst("Content-Type");
        if (ex.getRequestMethod().equals("POST") && ct != null && ct.startsWith("application/x-www-form-urlencoded")) {
            parse(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8), params);
        }
        String problem = null;
        String user = one(params, "userId");
        Integer product = null;
        Integer quantity = null;
        BigDecimal price = null;
        if (params.getOrDefault("userId", List.of()).size() > 1) problem = "parameter userId given more than once";
        else if (user == null || !USER.matcher(user).matches()) problem = "userId must be 1..64 characters of [A-Za-z0-9_.-]";
        if (problem == null) {
            String p = one(params, "productId");
            if (params.getOrDefault("productId", List.of()).size() > 1) problem = "parameter productId given more than once";
            else if (p == null || !NATURAL.matcher(p).matches() || Integer.parseInt(p) >= products) {
                problem = "productId must be an integer in 0.." + (products - 1);
            } else product = Integer.parseInt(p);
        }
        boolean storeAnyway = false;
        if (problem == null) {
            String q = one(params, "quantity");
            if (params.getOrDefault("quantity", List.of()).size() > 1) problem = "parameter quantity given more than once";
            else if (q == null || !NATURAL.matcher(q).matches() || Integer.parseInt(q) < 1 || Integer.parseInt(q) > 1_000_000) {
                problem = "quantity must be an integer in 1..1000000";
                if ("0".equals(q) && broken.contains(Breakage.BAD_INPUT_500)) {
                    send(ex, 500, Map.of("error", "boom"));
                    return;
                }
                if ("0".equals(q) && buy && broken.contains(Breakage.BAD_INPUT_STORED)) {
                    storeAnyway = true;
                    quantity = 1;
                }
            } else quantity = Integer.parseInt(q);
        }
        if (problem == null) {
            List<String> ps = params.getOrDefault("price", List.of());
            String p = ps.isEmpty() ? null : ps.get(0);
            if (ps.size() > 1) problem = "parameter price given more than once";
            else if (p == null && !buy) problem = "price is required for a sell";
            else if (p != null) {
                if (broken.contains(Breakage.BAD_INPUT_ACCEPTED) && p.matches("[0-9]+\\.[0-9]{3}")) {
                    price = new BigDecimal(p).setScale(2, java.math.RoundingMode.DOWN);
                } else if (!PRICE.matcher(p).matches()) problem = "price must be a number with at most 2 decimals";
                else {
                    price = new BigDecimal(p);
                    if (price.signum() <= 0 || price.compareTo(MAX_PRICE) > 0) problem = "price must be in (0, 1e9]";
                }
            }
        }
        if (problem != null) {
            rejected.incrementAndGet();
            if (storeAnyway) inbox.add(new Order(nextId(), buy, user, product, quantity, price));
            if (broken.contains(Breakage.ERROR_NOT_JSON)) sendText(ex, 400, problem);
            else send(ex, 400, Map.of("error", problem));
            return;
        }
        if (broken.contains(Breakage.OVERLOAD_BARE) && rejectedOverload.incrementAndGet() % 10 == 0) {
            send(ex, 503, Map.of("error", "overloaded"));
            return;
        }
        if (hanging && broken.contains(Breakage.ORDERS_HANG)) {
            try {
                Thread.sleep(3_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Order o = new Order(nextId(), buy, user, product, quantity, price);
        orders.put(o.id, o);
        accepted.incrementAndGet();
        inbox.add(o);
        send(ex, 202, Map.of("id", o.id, "side", buy ? "buy" : "sell", "status", "accepted"));
    }

    private long nextId() {
        if (broken.contains(Breakage.IDS_NOT_INCREASING)) {
            // Counting down from a little above the clock: every id still looks plausible, only their order is wrong.
            long top = System.currentTimeMillis() * 1000 + 1_000_000_000L;
            return lastId.updateAndGet(last -> (last == 0 ? top : last) - 1);
        }
        long now = System.currentTimeMillis() * 1000;
        return lastId.updateAndGet(last -> Math.max(last + 1, now));
    }

    private void orderView(HttpExchange ex, String idText) throws IOException {
        if (!idText.matches("[1-9][0-9]{0,17}")) {
            send(ex, 400, Map.of("error", "order id must be a positive integer"));
            return;
        }
        long id = Long.parseLong(idText);
        Order o = orders.get(id);
        if (o == null) {
            if (broken.contains(Breakage.UNKNOWN_ORDER_200)) send(ex, 200, Map.of("id", id, "status", "unknown", "fills", List.of()));
            else send(ex, 404, Map.of("error", "no such order: " + id));
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        synchronized (o) {
            m.put("id", o.id);
            m.put("side", o.buy ? "buy" : "sell");
            m.put("userId", o.userId);
            m.put("productId", Integer.toString(o.product));
            m.put("quantity", o.quantity);
            m.put("remaining", Math.max(0, o.quantity - o.storedQuantity));
            m.put("status", o.storedQuantity >= o.quantity ? "filled" : "open");
            m.put("fills", new ArrayList<>(o.fills));
        }
        send(ex, 200, m);
    }

    private Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("variant", "fake");
        m.put("uptimeMs", System.currentTimeMillis() - startMs);
        m.put("accepted", accepted.get());
        m.put("rejected", rejected.get());
        m.put("overloaded", 0);
        m.put("salesPersisted", salesPersisted.get());
        m.put("salesLastMinute", salesPersisted.get());
        m.put("persistenceFailures", 0);
        m.put("openOrders", 0);
        if (!broken.contains(Breakage.STATS_INCOMPLETE)) m.put("pendingOrders", inbox.size());
        m.put("engines", List.of(Map.of("engine", 0, "accepted", accepted.get(), "openOrders", 0,
                "pendingOrders", inbox.size(), "salesPersisted", salesPersisted.get(), "cycles", cycles.get(),
                "persistenceFailures", 0)));
        return m;
    }

    private static void parse(String raw, Map<String, List<String>> into) {
        if (raw == null || raw.isEmpty()) return;
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            into.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
        }
    }

    private static String one(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static void send(HttpExchange ex, int status, Map<String, ?> body) throws IOException {
        byte[] bytes = Answer.JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    private static void sendText(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    // ---- the engine ----

    private void cycle() {
        try {
            Order o;
            boolean arrived = false;
            while ((o = inbox.poll()) != null) {
                market.add(o);
                arrived = true;
            }
            List<Object[]> sales = new ArrayList<>();
            for (Order buy : new ArrayList<>(market)) {
                if (!buy.buy || buy.remaining <= 0) continue;
                if (broken.contains(Breakage.CROSSED_MARKET) && buy.product == 0) continue;
                Order best = null;
                for (Order s : market) {
                    if (s.buy || s.product != buy.product || s.remaining <= 0) continue;
                    if (best == null || s.price.compareTo(best.price) < 0) best = s;
                }
                if (best == null || buy.price != null && buy.price.compareTo(best.price) < 0) continue;
                long q = broken.contains(Breakage.OVERFILL) ? buy.remaining : Math.min(buy.remaining, best.remaining);
                BigDecimal price = broken.contains(Breakage.WRONG_PRICE) ? best.price.add(new BigDecimal("0.01")) : best.price;
                buy.remaining -= q;
                best.remaining -= q;
                sales.add(new Object[] {buy, best, price, q});
            }
            market.removeIf(x -> x.remaining <= 0);
            for (Object[] s : sales) store((Order) s[0], (Order) s[1], (BigDecimal) s[2], (Long) s[3]);
            long cycle = cycles.incrementAndGet();
            if (!arrived && sales.isEmpty()) lastQuietCycle.set(cycle);
        } catch (Exception e) {
            e.printStackTrace();
        }
    }

    private void store(Order buy, Order sell, BigDecimal price, long q) throws SQLException {
        long created = System.currentTimeMillis();
        String buyer = broken.contains(Breakage.WRONG_NAMES) ? sell.userId : buy.userId;
        String seller = broken.contains(Breakage.WRONG_NAMES) ? buy.userId : sell.userId;
        int copies = broken.contains(Breakage.DUPLICATE_PAIR) ? 2 : 1;
        long saleId = 0;
        if (broken.contains(Breakage.SALE_NOT_STORED) && salesPersisted.get() % 20 == 19) copies = 0;
        if (copies == 0) salesPersisted.incrementAndGet();
        for (int i = 0; i < copies; i++) {
            try (PreparedStatement ps = db.prepareStatement("INSERT INTO " + table
                    + " (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES (?,?,?,?,?,?,?,?)",
                    java.sql.Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, buyer);
                ps.setString(2, seller);
                ps.setString(3, Integer.toString(buy.product));
                ps.setBigDecimal(4, price);
                ps.setLong(5, q);
                ps.setLong(6, buy.id);
                ps.setLong(7, sell.id);
                ps.setLong(8, created);
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    saleId = keys.getLong(1);
                }
            }
            salesPersisted.incrementAndGet();
        }
        Map<String, Object> fill = new LinkedHashMap<>();
        fill.put("saleId", saleId);
        fill.put("buyer", buyer);
        fill.put("seller", seller);
        fill.put("productId", Integer.toString(buy.product));
        fill.put("price", price);
        fill.put("quantity", q);
        fill.put("poId", buy.id);
        fill.put("soId", sell.id);
        fill.put("created", created);
        for (Order o : List.of(buy, sell)) {
            synchronized (o) {
                o.fills.add(fill);
                o.storedQuantity += q;
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        engine.shutdownNow();
        try {
            engine.awaitTermination(5, TimeUnit.SECONDS);
            db.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
