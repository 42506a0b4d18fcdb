package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The test database TRADER_TEST_LOADCLIENT on DB_HOST/DB_PORT/DB_USER/DB_PASSWORD
 * (what {@code ./tradebench test} exports). Only integration tests ({@code *IT})
 * use it; a missing or unreachable database fails them, never skips them.
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
            fail("DB_HOST/DB_PORT/DB_USER/DB_PASSWORD are not all set: run the integration tests with ./tradebench test");
        }
        String url = "jdbc:mysql://" + host + ":" + port + "/" + NAME + "?user=" + user + "&password=" + password;
        try (Connection c = DriverManager.getConnection(url)) {
            c.isValid(2);
        } catch (SQLException e) {
            fail("test database unreachable: " + e.getMessage(), e);
        }
        return url;
    }
}
