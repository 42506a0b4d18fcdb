package tradebench.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IdSourceTest {
    @Test
    void idsIncreaseAndStartAboveTheLargestStoredId() {
        long stored = System.currentTimeMillis() * 1000 + 5_000_000_000L; // a run whose ids ran ahead of the clock
        IdSource ids = new IdSource(stored);
        long a = ids.next(), b = ids.next();
        assertTrue(a > stored && b > a);
        assertTrue(ids.issued(a) && ids.issued(b));
        assertFalse(ids.issued(stored));
        assertTrue(b < (1L << 53), "exact in JavaScript");
    }

    @Test
    void aRestartNeverReusesAnIdEvenWithNothingStored() {
        IdSource first = new IdSource(0);
        long last = 0;
        for (int i = 0; i < 100_000; i++) last = first.next(); // faster than one per microsecond
        IdSource restarted = new IdSource(last); // the restart reads the stored floor
        assertTrue(restarted.next() > last);
    }

    @Test
    void concurrentCallersNeverGetTheSameId() {
        IdSource ids = new IdSource(0);
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 8).parallel().forEach(t -> {
            for (int i = 0; i < 50_000; i++) assertTrue(seen.add(ids.next()));
        });
    }

    @Test
    void stridedSourcesIssueDisjointIdsThatNameTheirIssuer() {
        IdSource[] members = {new IdSource(0, 16, 0), new IdSource(0, 16, 1), new IdSource(0, 16, 15)};
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        long[] previous = new long[members.length];
        for (int i = 0; i < 20_000; i++) {
            for (int m = 0; m < members.length; m++) {
                long id = members[m].next();
                assertTrue(seen.add(id), "id " + id + " issued twice");
                assertTrue(id > previous[m], "ids increase per member");
                previous[m] = id;
                int residue = m == 2 ? 15 : m;
                assertTrue(IdSource.issuerOf(id, 16) == residue, "id " + id + " names member " + residue);
                assertTrue(members[m].issued(id));
                assertFalse(members[(m + 1) % members.length].issued(id), "another member never claims it");
            }
        }
    }
}
