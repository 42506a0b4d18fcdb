package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The test database TRADER_TEST_LOADCLIENT on DB_HOST/DB_PORT/DB_USER/DB_PASSWORD
 * (what {@code ./tradebench test} exports). Missing: the test is skipped, or
 * fails when TB_REQUIRE_DB=1 (the launcher's run must not pass by skipping).
 */
public final class TestDb {

    public static final String NAME = "TRADER_TEST_LOADCLIENT";

    private TestDb() {}

    public static String jdbcUrl() {
        String host = System.getenv("DB_HOST");
        String port = System.getenv("DB_PORT");
        String user = System.getenv("DB_USER");
        String password = System.getenv("DB_PASSWORD");
        boolean present = host != null && port != null && user != null && password != null;
        if (!present) {
            if ("1".equals(System.getenv("TB_REQUIRE_DB"))) {
                fail("TB_REQUIRE_DB=1 but DB_HOST/DB_PORT/DB_USER/DB_PASSWORD are not all set");
            }
            assumeTrue(false, "no test database (set DB_HOST, DB_PORT, DB_USER, DB_PASSWORD)");
        }
        String url = "jdbc:mysql://" + host + ":" + port + "/" + NAME + "?user=" + user + "&password=" + password;
        try (Connection c = DriverManager.getConnection(url)) {
            c.isValid(2);
        } catch (SQLException e) {
            if ("1".equals(System.getenv("TB_REQUIRE_DB"))) fail("test database unreachable: " + e.getMessage(), e);
            assumeTrue(false, "test database unreachable: " + e.getMessage());
        }
        return url;
    }
}
