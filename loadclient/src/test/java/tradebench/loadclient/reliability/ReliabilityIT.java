package tradebench.loadclient.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tradebench.loadclient.Main;
import tradebench.loadclient.TestDb;
import tradebench.loadclient.verify.FakeMarket;
import tradebench.loadclient.verify.FakeMarket.Breakage;
import tradebench.testing.Wait;

/**
 * {@code loadclient reliability} phases against the verifier's fake market
 * (contract validation, one engine, SALES over JDBC; on the JDK's HttpServer,
 * whose own HTTP layer is not under test: {@code --protocol off}): the good market passes,
 * a market that breaks a rule is caught under the rule's name, and a variant
 * without fault injection fails the crash phase (never a silent skip).
 */
class ReliabilityIT {

    private static final int PRODUCTS = 10;
    /** A table of the tests' own (other tests write SALES); without the unique key, so a pair can be stored twice. */
    private static final String TABLE = "SALES_REL_TEST";

    private static String jdbcUrl;

    @TempDir
    Path tmp;

    @BeforeEach
    void database() throws Exception {
        if (jdbcUrl == null) jdbcUrl = TestDb.jdbcUrl();
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("CREATE TABLE " + TABLE + " LIKE SALES");
            st.execute("ALTER TABLE " + TABLE + " DROP INDEX SALES_PO_SO, ADD INDEX RT_PO (PO_ID)");
        }
    }

    private record Outcome(int code, String output, JsonNode figures) {
        boolean failed(String check) {
            return output.lines().anyMatch(l -> l.startsWith("FAIL " + check + ":"));
        }
    }

    private Outcome run(String... args) throws Exception {
        return run(InputStream.nullInputStream(), args);
    }

    private Outcome run(InputStream stdin, String... args) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        Path json = tmp.resolve("figures-" + System.nanoTime() + ".json");
        List<String> all = new ArrayList<>(List.of("reliability"));
        all.addAll(List.of(args));
        all.addAll(List.of("--db-url", jdbcUrl, "--sales-table", TABLE, "--products", Integer.toString(PRODUCTS),
                "--json", json.toString(), "--quiet-timeout", "10"));
        int code = Main.run(all.toArray(String[]::new), stdin, out, out);
        String text = buf.toString(StandardCharsets.UTF_8);
        JsonNode figures = Files.exists(json) ? new ObjectMapper().readTree(json.toFile()) : null;
        return new Outcome(code, text, figures);
    }

    @Test
    void badInputPassesOnAMarketThatKeepsTheRules() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            Outcome o = run("bad-input", "--url", m.url().toString(), "--protocol", "off");
            assertEquals(0, o.code(), o.output());
            assertTrue(o.figures().path("inputsTried").asInt() >= 500, o.output());
            assertEquals(o.figures().path("inputsTried").asInt(), o.figures().path("answered4xx").asInt(), o.output());
            assertTrue(o.output().contains("ok   bad-input:"), o.output());
        }
    }

    @Test
    void badInputCatchesA500() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE, Breakage.BAD_INPUT_500)) {
            Outcome o = run("bad-input", "--url", m.url().toString(), "--protocol", "off");
            assertEquals(1, o.code());
            assertTrue(o.failed("bad-input-5xx"), o.output());
        }
    }

    @Test
    void badInputCatchesARefusedOrderThatEntersTheMarket() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE, Breakage.BAD_INPUT_STORED)) {
            Outcome o = run("bad-input", "--url", m.url().toString(), "--protocol", "off");
            assertEquals(1, o.code());
            assertTrue(o.failed("bad-input-market") || o.failed("bad-input-sales"), o.output());
        }
    }

    @Test
    void badInputCatchesTextErrors() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE, Breakage.ERROR_NOT_JSON)) {
            Outcome o = run("bad-input", "--url", m.url().toString(), "--protocol", "off");
            assertEquals(1, o.code());
            assertTrue(o.failed("bad-input-answer"), o.output());
        }
    }

    @Test
    void crashWithoutFaultInjectionFailsVisibly() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            Outcome o = run("crash", "--url", m.url().toString(), "--engines", "1", "--engine", "0", "--crash-at", "0.5",
                    "--duration", "4.5", "--orders-out", tmp.resolve("crash.tsv").toString());
            assertEquals(1, o.code());
            assertTrue(o.output().contains("no fault injection"), o.output());
            assertEquals(false, o.figures().path("faultInjection").asBoolean(true));
        }
    }

    @Test
    void loadThenAuditHolds() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            Path orders = tmp.resolve("load.tsv");
            Outcome load = run("load", "--url", m.url().toString(), "--duration", "1.5", "--connections", "4", "--wait", "1",
                    "--orders-out", orders.toString());
            assertEquals(0, load.code(), load.output());
            assertTrue(load.figures().path("accepted").asLong() > 50, load.output());
            long answered = m.cycles();   // every order of the load was in the inbox before its answer
            Wait.until(() -> m.quietAfter(answered), "the fake market's engine traded and stored its last sales");
            long rows = count();
            assertTrue(rows > 0, "the fake market traded");
            Outcome audit = run("audit", "--url", m.url().toString(), "--orders", orders.toString(),
                    "--expect-sales", Long.toString(rows), "--expect-accepted", Long.toString(load.figures().path("accepted").asLong()));
            assertEquals(0, audit.code(), audit.output());
            assertEquals(rows, audit.figures().path("salesChecked").asLong());
        }
    }

    @Test
    void aMixedLoadsOrderFileIsAudited() throws Exception {
        // loadclient load --orders-out (orders and views in one run) writes what the audit phase reads.
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            Path orders = tmp.resolve("mixed.tsv");
            Path json = tmp.resolve("mixed.json");
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int code = Main.run(new String[] {"load", "--url", m.url().toString(), "--concurrency", "4", "--wait", "1",
                "--duration", "1", "--warmup", "0.3", "--products", Integer.toString(PRODUCTS), "--user-prefix", "r-",
                "--view-clients", "4", "--view-pause", "5-20", "--orders-out", orders.toString(), "--json", json.toString()},
                    new PrintStream(buf, true, StandardCharsets.UTF_8), System.err);
            assertEquals(0, code, buf.toString(StandardCharsets.UTF_8));
            JsonNode figures = new ObjectMapper().readTree(json.toFile());
            assertTrue(figures.path("types").path("view").path("answers").path("ok").asLong() > 10, figures.toString());
            long accepted = figures.path("ordersWritten").asLong();
            assertTrue(accepted > 50, figures.toString());
            long answered = m.cycles();
            Wait.until(() -> m.quietAfter(answered), "the fake market's engine traded and stored its last sales");
            long rows = count();
            assertTrue(rows > 0, "the fake market traded");
            Outcome audit = run("audit", "--orders", orders.toString(), "--prefix", "r-",
                    "--expect-sales", Long.toString(rows), "--expect-accepted", Long.toString(accepted));
            assertEquals(0, audit.code(), audit.output());
            assertEquals(rows, audit.figures().path("salesChecked").asLong());
        }
    }

    @Test
    void auditCatchesDuplicatesOverfillsStrangersAndAWrongExitLine() throws Exception {
        Path orders = tmp.resolve("orders.tsv");
        Files.writeString(orders, "1001\tbuy\tr-b1\t3\t5\t-\n1002\tsell\tr-s1\t3\t2\t10.00\n1003\tsell\tr-s2\t3\t4\t11.00\n");
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
            String ins = "INSERT INTO " + TABLE + " (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES ";
            st.execute(ins + "('r-b1', 'r-s1', '3', 10.00, 2, 1001, 1002, 1)");
            st.execute(ins + "('r-b1', 'r-s1', '3', 10.00, 2, 1001, 1002, 2)");   // the same sale twice: over-fills 1002 too
            st.execute(ins + "('r-b9', 'r-s2', '3', 11.00, 1, 999, 1003, 3)");    // a buy the suite never got a 202 for
        }
        Outcome o = run("audit", "--orders", orders.toString(), "--expect-sales", "2", "--expect-accepted", "4");
        assertEquals(1, o.code());
        for (String check : List.of("sale-duplicate-pair", "sale-overfill", "sale-unaccepted-order", "exit-sales", "exit-accepted")) {
            assertTrue(o.failed(check), check + " not caught:\n" + o.output());
        }
    }

    /**
     * The dbcrash phase against the fake market, the launcher's part played here on the phase's stdin: the kill
     * said once the load has stored sales (the phase's reference rate is read from the ones before it),
     * the return once the market has accepted orders since (the load went on through the "outage";
     * no database is killed: the fake keeps storing, so its rate is back at once); {@code during}
     * runs between the two.
     */
    private Outcome dbCrash(FakeMarket m, Runnable during) throws Exception {
        PipedOutputStream launcherSays = new PipedOutputStream();
        PipedInputStream stdin = new PipedInputStream(launcherSays);
        Thread launcher = Thread.ofPlatform().start(() -> {
            try (PrintStream say = new PrintStream(launcherSays, true, StandardCharsets.UTF_8)) {
                Wait.until(() -> count() >= 20, "the load's first sales stored");
                say.println("db-killed " + System.currentTimeMillis());
                during.run();
                long acceptedAtKill = m.accepted();
                Wait.until(() -> m.accepted() > acceptedAtKill, "orders accepted after the kill");
                say.println("db-back " + System.currentTimeMillis());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Outcome o = run(stdin, "dbcrash", "--url", m.url().toString(), "--duration", "20", "--connections", "4", "--wait", "2",
                "--request-timeout", "1000", "--recovery", "5", "--orders-out", tmp.resolve("dbcrash.tsv").toString());
        launcher.join();
        return o;
    }

    @Test
    void dbCrashPassesOnAMarketThatKeepsItsSales() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            Outcome o = dbCrash(m, () -> {});
            assertEquals(0, o.code(), o.output());
            assertTrue(o.figures().path("fullRateMs").asLong() >= 1000, o.output());
            assertTrue(o.figures().path("referenceSalesPerS").asLong() > 0, o.output());
            assertEquals(count(), o.figures().path("salesPersisted").asLong(), o.output());
        }
    }

    @Test
    void dbCrashCatchesAnOrderThatHangs() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE, Breakage.ORDERS_HANG)) {
            Outcome o = dbCrash(m, m::hangOrders);
            assertEquals(1, o.code());
            assertTrue(o.failed("dbcrash-hang"), o.output());
        }
    }

    @Test
    void dbCrashCatchesASaleCountedButNotStored() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE, Breakage.SALE_NOT_STORED)) {
            Outcome o = dbCrash(m, () -> {});
            assertEquals(1, o.code());
            assertTrue(o.failed("dbcrash-stored"), o.output());
        }
    }

    @Test
    void dbCrashFailsAtOnceWhenTheLauncherNeverSaysTheKill() throws Exception {
        try (FakeMarket m = new FakeMarket(PRODUCTS, jdbcUrl, TABLE)) {
            InputStream stdin = new ByteArrayInputStream("db-killed-file k\n".getBytes(StandardCharsets.UTF_8));
            long t0 = System.currentTimeMillis();
            Outcome o = run(stdin, "dbcrash", "--url", m.url().toString(), "--duration", "60", "--connections", "2",
                    "--orders-out", tmp.resolve("dbcrash.tsv").toString());
            assertEquals(1, o.code());
            assertTrue(o.failed("dbcrash-killed"), o.output());
            assertTrue(o.failed("db-events"), o.output());
            assertTrue(System.currentTimeMillis() - t0 < 30_000, "the end of stdin ends the wait, not --duration");
        }
    }

    private long count() throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
