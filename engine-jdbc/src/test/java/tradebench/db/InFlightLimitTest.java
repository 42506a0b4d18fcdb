package tradebench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tradebench.testing.Wait;

/**
 * The limit on inserts in flight, fed round trips of a modelled database on a clock of its own: a link of
 * {@code linkUs} each way and a server that answers one insert every {@code serviceUs}. The inserts of a
 * round are sent together, so the i-th is answered after the link and i services (queueing, when the
 * server is the bottleneck) and the round lasts until the last answer.
 */
class InFlightLimitTest {
    private static final long MS = 1_000_000;
    private long now = 1_000 * MS;

    /** Rounds at the limit for {@code forMs}, each insert's round trip told as it is answered. */
    private void run(InFlightLimit limit, long forMs, long linkUs, long serviceUs) {
        long until = now + forMs * MS;
        while (now < until) {
            int n = limit.limit();
            for (int i = 0; i < n; i++) limit.acquire();
            long sent = now;
            for (int i = 1; i <= n; i++) {
                long rtt = (linkUs + i * serviceUs) * 1_000;
                limit.roundTrip(rtt, sent + rtt);
            }
            now = sent + (linkUs + n * serviceUs) * 1_000;
            for (int i = 0; i < n; i++) limit.release();
        }
    }

    /**
     * Rounds at the limit for {@code forMs} with a writer wanting one place more (refused), on a variant short of
     * processor time: every answer waits {@code waitUs} for the sender's thread to run again, however many are
     * in flight, except the first of a round, read without waiting ({@code readyUs}); the database itself
     * answers one insert every {@code serviceUs}.
     */
    private void runStarved(InFlightLimit limit, long forMs, long waitUs, long readyUs, long serviceUs) {
        long until = now + forMs * MS;
        while (now < until) {
            int n = limit.limit();
            for (int i = 0; i < n; i++) limit.acquire();
            assertFalse(limit.tryAcquire(), "the limit is full");
            long sent = now;
            long last = 0;
            for (int i = 1; i <= n; i++) {
                long served = i * serviceUs;
                long rtt = (i == 1 ? Math.max(readyUs, served) : Math.max(waitUs, served)) * 1_000;
                limit.roundTrip(rtt, sent + rtt);
                last = Math.max(last, rtt);
            }
            now = sent + last;
            for (int i = 0; i < n; i++) limit.release();
        }
    }

    @Test
    void climbsWhereMoreInFlightStoreMoreThoughTheRoundTripsSayQueue() {
        // the round trips alone hold it at 4 (a median of 2 ms against a least of 30 µs); twice as many in flight
        // store twice as much, and it tries that once a second
        InFlightLimit limit = new InFlightLimit(4, 64);
        runStarved(limit, 500, 2_000, 30, 0);
        assertEquals(4, limit.limit(), "the round trips say queue");
        runStarved(limit, 8_000, 2_000, 30, 0);
        assertEquals(64, limit.limit(), "each doubling stored more: at its ceiling");
        runStarved(limit, 5_000, 2_000, 30, 0);
        assertTrue(limit.limit() >= 32, "and it stays up, but for a try at half its floor: " + limit.limit());
    }

    @Test
    void keepsItsFloorWhereTheDatabaseIsTheQueue() {
        // the same starved variant, but the database answers one insert every 500 µs: 4 in flight already keep it
        // busy (2 ms ÷ 0.5 ms), twice as many store no more
        InFlightLimit limit = new InFlightLimit(4, 64);
        runStarved(limit, 10_000, 2_000, 30, 500);
        assertTrue(limit.limit() <= 8, "its floor, or a try at twice it: " + limit.limit());
    }

    @Test
    void lowersARaisedFloorWhenHalfStoresAsMuch() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        runStarved(limit, 8_000, 2_000, 30, 0);
        assertEquals(64, limit.limit());
        // the database becomes the queue: one insert every 200 µs, 10 in flight keep it busy
        runStarved(limit, 15_000, 2_000, 30, 200);
        assertTrue(limit.limit() <= 32, "tried at its half, which stored as much: " + limit.limit());
    }

    @Test
    void startsAtItsCeiling() {
        assertEquals(64, new InFlightLimit(4, 64).limit());
        assertEquals(8, new InFlightLimit(16, 8).limit(), "the floor never above the ceiling");
    }

    @Test
    void takesMoreOnlyWhereTheLimitHasRoomAndNobodyWaits() throws Exception {
        InFlightLimit limit = new InFlightLimit(1, 3);
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        limit.acquire();
        assertFalse(limit.tryAcquire(), "the limit is full");
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch got = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            waiting.countDown();
            limit.acquire();
            got.countDown();
        });
        waiting.await();
        Wait.until(() -> waiter.getState() == Thread.State.WAITING, "the waiter parked in acquire");
        limit.release();
        assertTrue(got.await(5, TimeUnit.SECONDS), "the freed place goes to the one who waited");
        assertFalse(limit.tryAcquire(), "not to a writer that comes after");
        waiter.join();
    }

    @Test
    void saysWhenMoreAreInFlightThanTheLimitNowAllows() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        for (int i = 0; i < 64; i++) limit.acquire();
        assertFalse(limit.overLimit(), "64 in flight at a limit of 64");
        limit.roundTrip(100_000, now); // a least round trip of 0.1 ms
        for (int k = 1; k <= 10; k++) limit.roundTrip(5 * MS, now + k * MS); // then a window of 5 ms: a queue
        assertEquals(32, limit.limit(), "halved");
        assertTrue(limit.overLimit(), "64 in flight at a limit of 32");
        for (int i = 0; i < 32; i++) limit.release();
        assertFalse(limit.overLimit(), "32 at 32");
    }

    @Test
    void shrinksToItsFloorWhenTheRoundTripIsQueueingInTheDatabase() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        run(limit, 100, 0, 30); // a database next door: every insert in flight waits for those before it
        assertEquals(4, limit.limit());
        run(limit, 2_000, 0, 30);
        assertEquals(4, limit.limit(), "and stays there");
    }

    @Test
    void growsToItsCeilingUnderPureLatency() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        run(limit, 1_000, 0, 30);
        assertEquals(4, limit.limit());
        run(limit, 1_000, 20_000, 0); // the link becomes 20 ms: the round trip is latency, not queueing
        assertEquals(4, limit.limit(), "until the least round trip of the near link is forgotten");
        run(limit, 1_500, 20_000, 0);
        assertEquals(64, limit.limit(), "within 2.5 s of the change");
        run(limit, 5_000, 50_000, 10);
        assertEquals(64, limit.limit(), "a slower link still, with a little queueing: at its ceiling");
    }

    @Test
    void followsAFasterLinkAtOnce() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        run(limit, 1_000, 20_000, 0);
        assertEquals(64, limit.limit());
        run(limit, 60, 0, 30);
        assertEquals(4, limit.limit(), "a few windows of 10 ms, each at least halving it");
    }

    @Test
    void settlesNearWhatTheRoundTripNeedsWhenTheDatabaseSaturatesFirst() {
        // a 1 ms link and 50 µs an insert: 21 in flight keep the server busy (Little's law), more only queue;
        // the tolerance lets the round trip reach 1.5 times the least, about 32 in flight
        InFlightLimit limit = new InFlightLimit(4, 64);
        run(limit, 3_000, 1_000, 50);
        int settled = limit.limit();
        assertTrue(settled > 16 && settled < 48, "between its floor and its ceiling, near 21 to 32: " + settled);
    }

    @Test
    void doesNotGrowOnWindowsThatLeftTheLimitUnused() {
        InFlightLimit limit = new InFlightLimit(4, 64);
        run(limit, 200, 0, 30);
        assertEquals(4, limit.limit());
        for (int i = 0; i < 1_000; i++) { // one insert at a time, no queueing: 1 in flight says nothing of 5
            limit.acquire();
            now += MS;
            limit.roundTrip(30_000, now);
            limit.release();
        }
        assertEquals(4, limit.limit());
    }

    @Test
    void theGateHoldsTheInFlightToTheLimit() throws Exception {
        InFlightLimit limit = new InFlightLimit(1, 2);
        limit.acquire();
        limit.acquire();
        CountDownLatch third = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            limit.acquire();
            third.countDown();
        });
        assertFalse(third.await(200, TimeUnit.MILLISECONDS), "a third waits while two are in flight");
        limit.release();
        assertTrue(third.await(5, TimeUnit.SECONDS), "and goes when one is answered");
        waiter.join();
    }
}
