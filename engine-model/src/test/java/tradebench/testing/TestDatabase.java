package tradebench.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import tradebench.engine.Config;

/**
 * The test database of a module: TRADER_TEST_<ARTIFACT ID> on the private database
 * (`./tradebench test` creates it from schema.sql and exports DB_HOST, DB_PORT,
 * DB_USER, DB_PASSWORD). One per module, the Pekko builds' too: Maven builds
 * independent modules side by side ({@code -T}), and two modules' tests must
 * never count or delete each other's sales. Only integration tests ({@code *IT}, run by Failsafe)
 * use it, and a missing database fails them: a database test never skips.
 */
public final class TestDatabase {
    public final String name;

    private TestDatabase(String name) {
        this.name = name;
    }

    /**
     * The running module's database: java-threads' is TRADER_TEST_JAVA_THREADS, java-akka/pekko's
     * (artifact java-akka-pekko) TRADER_TEST_JAVA_AKKA_PEKKO. Failsafe names the module
     * (tradebench.module, the root pom).
     */
    public static TestDatabase ofThisModule() {
        String module = System.getProperty("tradebench.module");
        if (module == null) {
            throw new IllegalStateException("tradebench.module is not set: run the integration tests through Maven"
                    + " (the root pom's Failsafe configuration sets it)");
        }
        TestDatabase db = new TestDatabase("TRADER_TEST_" + module.toUpperCase().replace('-', '_'));
        String host = System.getenv("DB_HOST");
        if (host == null) {
            throw new IllegalStateException("DB_HOST is not set: run the integration tests with ./tradebench test"
                    + " (or mvn install -DskipITs for the unit tests alone)");
        }
        return db;
    }

    /** contract section 5 settings for this database, plus {@code extra} (e.g. PERSIST=batch). */
    public Config config(String... extra) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("DB_NAME", name);
        for (int i = 0; i + 1 < extra.length; i += 2) env.put(extra[i], extra[i + 1]);
        return Config.from(env);
    }

    public String jdbcUrl() {
        return config().jdbcUrl();
    }

    public Connection connect() throws SQLException {
        Config c = config();
        return DriverManager.getConnection(c.jdbcUrl() + "?allowPublicKeyRetrieval=true&useSSL=false", c.dbUser(), c.dbPassword());
    }

    public void deleteAllSales() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM SALES");
        }
    }

    public long count(String where) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM SALES" + (where.isEmpty() ? "" : " WHERE " + where))) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
