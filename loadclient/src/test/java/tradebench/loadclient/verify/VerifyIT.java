package tradebench.loadclient.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tradebench.loadclient.Main;
import tradebench.loadclient.TestDb;
import tradebench.loadclient.audit.Report.Failure;
import tradebench.loadclient.verify.FakeMarket.Breakage;

/**
 * {@code verify} against a fake market that keeps the rules, then against
 * versions of it that break one rule each: verify must pass the first and
 * name the broken rule for every other.
 */
class VerifyIT {

    private static final int PRODUCTS = 10;
    /** A copy of SALES without the unique (PO_ID, SO_ID) key: the only way to store a pair twice. */
    private static final String NO_UNIQUE = "SALES_NO_UNIQUE";

    private static String jdbcUrl;

    /** Per test, not @BeforeAll: without a database each test is then reported skipped, not silently absent. */
    @BeforeEach
    void database() throws Exception {
        if (jdbcUrl != null) return;
        String url = TestDb.jdbcUrl();
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + NO_UNIQUE);
            st.execute("CREATE TABLE " + NO_UNIQUE + " LIKE SALES");
            st.execute("ALTER TABLE " + NO_UNIQUE + " DROP INDEX SALES_PO_SO, ADD INDEX NU_PO (PO_ID)");
        }
        jdbcUrl = url;
    }

    private record Outcome(List<Failure> failures, String output) {
        boolean failed(String check) {
            return failures.stream().anyMatch(f -> f.check().equals(check));
        }
    }

    private static Outcome verify(String table, Breakage... broken) throws Exception {
        try (FakeMarket market = new FakeMarket(PRODUCTS, jdbcUrl, table, broken)) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
            VerifyOptions options = VerifyOptions.parse(new String[] {
                    "--url", market.url().toString(), "--db-url", jdbcUrl, "--products", Integer.toString(PRODUCTS),
                    "--orders", "400", "--connections", "8", "--quiet-timeout", "10", "--poll-timeout", "5",
                    "--sales-table", table});
            List<Failure> failures = new Verifier(options, out).run();
            return new Outcome(failures, buf.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aMarketThatKeepsTheRulesPasses() throws Exception {
        Outcome o = verify("SALES");
        assertEquals(List.of(), o.failures(), o.output());
        // the checks that matter actually ran
        for (String check : List.of("health", "stats", "bad-input", "bad-input-stats", "orders-unknown", "sale-exact",
                "form-body", "random-orders", "quiet", "sales-audit", "market-crossed", "orders-view", "ids", "stats-deltas")) {
            assertTrue(o.output().contains("ok   " + check + ":"), check + " did not pass visibly:\n" + o.output());
        }
    }

    @Test
    void theDuplicateTableItselfDoesNotUpsetVerify() throws Exception {
        Outcome o = verify(NO_UNIQUE);
        assertEquals(List.of(), o.failures(), o.output());
    }

    @ParameterizedTest
    @EnumSource(value = Breakage.class, mode = EnumSource.Mode.EXCLUDE, names = {"ORDERS_HANG", "SALE_NOT_STORED"})
    void eachBrokenRuleIsCaught(Breakage broken) throws Exception {
        Outcome o = verify(broken == Breakage.DUPLICATE_PAIR ? NO_UNIQUE : "SALES", broken);
        String expected = switch (broken) {
            case BAD_INPUT_500 -> "bad-input-5xx";
            case BAD_INPUT_ACCEPTED -> "bad-input-accepted";
            case BAD_INPUT_STORED -> "sale-unaccepted-order";
            case ERROR_NOT_JSON -> "bad-input-answer";
            case WRONG_PRICE -> "sale-price";
            case OVERFILL -> "sale-overfill";
            case DUPLICATE_PAIR -> "sale-duplicate-pair";
            case IDS_NOT_INCREASING -> "ids";
            case CROSSED_MARKET -> "market-crossed";
            case WRONG_NAMES -> "sale-names";
            case UNKNOWN_ORDER_200 -> "orders-unknown";
            case STATS_INCOMPLETE -> "stats";
            case HEALTH_DOWN -> "health";
            case OVERLOAD_BARE -> "overload-answer";
            case ORDERS_HANG, SALE_NOT_STORED -> throw new IllegalStateException("the dbcrash phase's breakages: ReliabilityIT");
        };
        assertTrue(o.failed(expected), broken + " should fail " + expected + ":\n" + o.output());
    }

    @Test
    void exitCodeIsNonZeroOnFailureAndTwoOnUsage() throws Exception {
        try (FakeMarket market = new FakeMarket(PRODUCTS, jdbcUrl, "SALES", Breakage.HEALTH_DOWN)) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
            int rc = Main.run(new String[] {"verify", "--url", market.url().toString(), "--db-url", jdbcUrl,
                    "--products", "10"}, out, out);
            assertEquals(1, rc, buf.toString(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        assertEquals(2, Main.run(new String[] {"verify", "--url", "http://127.0.0.1:1"}, out, out), "--db-url is required");
    }
}
