package tradebench.loadclient.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's lines on stdin as the outage phases read them. */
class DbEventsTest {

    @Test
    void eventsAreReadWithTheirMomentAndOtherLinesAreKeptAsMalformed() throws Exception {
        String said = "db-killed 1700000000123\n\nhello\ndb-back 1700000010456\ndb-back 1\ndb-killed soon\n";
        DbEvents events = DbEvents.listen(new ByteArrayInputStream(said.getBytes(StandardCharsets.UTF_8)));
        long deadline = System.currentTimeMillis() + 5_000;
        assertEquals(1700000000123L, events.await(DbEvents.KILLED, deadline));
        assertEquals(1700000010456L, events.await(DbEvents.BACK, deadline), "the first db-back counts");
        events.await("the end of stdin", deadline);
        assertEquals(List.of("hello", "db-killed soon"), events.malformed());
    }

    @Test
    void aWaitEndsAtItsDeadlineWhileStdinIsOpenAndAtOnceAtItsEnd() throws Exception {
        PipedOutputStream launcher = new PipedOutputStream();
        DbEvents events = DbEvents.listen(new PipedInputStream(launcher));
        long t0 = System.currentTimeMillis();
        assertEquals(-1, events.await(DbEvents.BACK, t0 + 300));
        long waited = System.currentTimeMillis() - t0;
        assertTrue(waited >= 300 && waited < 3_000, waited + " ms");
        try (PrintStream say = new PrintStream(launcher, true, StandardCharsets.UTF_8)) {
            say.println("db-back 42");
        }
        assertEquals(42, events.await(DbEvents.BACK, System.currentTimeMillis() + 5_000));
        long t1 = System.currentTimeMillis();
        assertEquals(-1, events.await(DbEvents.KILLED, t1 + 30_000), "nothing more comes once stdin ended");
        assertTrue(System.currentTimeMillis() - t1 < 3_000);
        assertEquals(-1, events.at(DbEvents.KILLED));
    }
}
