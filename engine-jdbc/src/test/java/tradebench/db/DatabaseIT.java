package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import tradebench.engine.SalesTable;
import tradebench.testing.TestDatabase;

/** The pool's connections against the real private database. */
class DatabaseIT {
    @Test
    void aStatementIsPreparedOnceOnTheServerAndThenOnlyExecuted() throws Exception {
        TestDatabase tdb = TestDatabase.ofThisModule();
        try (Database db = new Database(tdb.config("DB_POOL", "1")); Connection c = db.connection()) {
            long prepared = sessionStatus(c, "Com_stmt_prepare");
            long executed = sessionStatus(c, "Com_stmt_execute");
            for (int i = 0; i < 3; i++) { // as the per-sale writer does: prepare, execute, close, again
                try (PreparedStatement ps = c.prepareStatement(SalesTable.LARGEST_ORDER_ID); ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
            }
            // Server-side (binary protocol) and cached: the server parses the statement once,
            // then only executes it; a client-side statement would be neither.
            assertEquals(1, sessionStatus(c, "Com_stmt_prepare") - prepared, "server-side prepares");
            assertEquals(3, sessionStatus(c, "Com_stmt_execute") - executed, "server-side executions");
        }
    }

    private static long sessionStatus(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE '" + name + "'")) {
            rs.next();
            return rs.getLong(2);
        }
    }
}
