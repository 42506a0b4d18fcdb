package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import tradebench.engine.Config;
import tradebench.engine.Fill;
import tradebench.engine.SalesTable;
import tradebench.testing.BlackHole;
import tradebench.testing.TcpProxy;
import tradebench.testing.TestDatabase;

/** The order view's read pool on the test database, behind a proxy that slows or cuts it, or a black hole. */
class OrderReadsIT {
    private final TestDatabase tdb = TestDatabase.ofThisModule();

    private OrderReads readsThrough(int port) {
        return new OrderReads(tdb.config("READ_DB_HOST", "127.0.0.1", "READ_DB_PORT", Integer.toString(port),
                "READ_TIMEOUT_MS", "500", "READ_POOL", "1"));
    }

    @Test
    void aLateAnswerIsATimeOutAndItsConnectionIsNotHandedOn() throws Exception {
        long po = System.currentTimeMillis() * 1000 + 7;
        storeSale(po, po + 1);
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort()); OrderReads reads = readsThrough(proxy.port())) {
            assertEquals(1, reads.fills(po, reads.deadlineFromNow()).size());

            proxy.delayAnswers(1_500);
            long started = System.nanoTime();
            ReadTimedOut late = assertThrows(ReadTimedOut.class, () -> reads.fills(po + 2, reads.deadlineFromNow()));
            assertEquals("the order's fills were not read within 500 ms", late.getMessage());
            assertTrue((System.nanoTime() - started) / 1_000_000 < 3_000, "at the deadline, not at the answer");

            proxy.delayAnswers(0);
            // the one connection of the pool was reading order po + 2: the next view must not get its answer
            List<Fill> fills = reads.fills(po, reads.deadlineFromNow());
            assertEquals(1, fills.size());
            assertEquals(po, fills.get(0).poId());
        }
    }

    @Test
    void aViewWithTooLittleOfItsDeadlineLeftSendsNoQueryAndKeepsItsConnectionForTheNext() throws Exception {
        long po = System.currentTimeMillis() * 1000 + 11;
        storeSale(po, po + 1);
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort()); OrderReads reads = readsThrough(proxy.port())) {
            assertEquals(1, reads.fills(po, reads.deadlineFromNow()).size());
            assertEquals(50, reads.leastLeftMs());
            proxy.delayAnswers(200);   // a query sent now could not come back within 20 ms
            proxy.resetPeak();
            long nearlyGone = System.nanoTime() + 20_000_000L;
            assertThrows(ReadTimedOut.class, () -> reads.fills(po, nearlyGone));
            assertEquals(0, proxy.peakHeldAnswers(), "a query was sent with 20 ms left");
            proxy.delayAnswers(0);
            assertEquals(1, reads.openConnections(), "the connection was thrown away");
            assertEquals(1, reads.fills(po, reads.deadlineFromNow()).size());
        }
    }

    @Test
    void aServerThatNeverAnswersIsATimeOutAndARefusingOneIsUnreachable() throws Exception {
        try (BlackHole hole = new BlackHole(); OrderReads reads = readsThrough(hole.port())) {
            assertThrows(ReadTimedOut.class, () -> reads.fills(1, reads.deadlineFromNow()));
        }
        Config direct = tdb.config();
        try (TcpProxy proxy = new TcpProxy(direct.dbHost(), direct.dbPort()); OrderReads reads = readsThrough(proxy.port())) {
            proxy.cut();
            assertThrows(SQLException.class, () -> reads.fills(1, reads.deadlineFromNow()));
        }
    }

    private void storeSale(long po, long so) throws SQLException {
        try (Connection c = tdb.connect(); PreparedStatement ps = c.prepareStatement(SalesTable.INSERT_ONE)) {
            ps.setString(1, "b");
            ps.setString(2, "s");
            ps.setString(3, "1");
            ps.setBigDecimal(4, new java.math.BigDecimal("10.00"));
            ps.setLong(5, 1);
            ps.setLong(6, po);
            ps.setLong(7, so);
            ps.setLong(8, System.currentTimeMillis());
            ps.executeUpdate();
        }
    }
}
