package tradebench.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Every ring delivers exactly members x messages hand-overs and its clock stops only once the last has arrived, on
 * a small ring, over two rounds (JMH reuses a ring). Rings that drop or double-deliver prove the check fails.
 */
class RingTest {
    private static final int MEMBERS = 100;
    private static final int MESSAGES = 50;
    /** generous on a loaded 2-core machine: a correct small round takes milliseconds */
    private static final Duration LIMIT = Duration.ofSeconds(20);

    static List<String> rings() {
        return Rings.NAMES;
    }

    @ParameterizedTest
    @MethodSource("rings")
    void deliversEveryHandOverOnceAndStopsAtTheLastArrival(String name) throws InterruptedException {
        Tally tally = new Tally(MEMBERS, MESSAGES);
        try (Ring ring = Rings.open(name, tally, 2)) {
            for (int i = 0; i < 2; i++) {
                Round round = Round.run(ring, tally, LIMIT);
                assertNull(round.problem(), name + " round " + i);
                assertEquals((long) MEMBERS * MESSAGES, round.received());
                assertEquals(MESSAGES, tally.arrivedAtEnd());
                assertTrue(round.wallNanos() >= round.lastArrivalNanos());
                assertTrue(round.cpuNanos() >= 0, "the process CPU time never runs backwards");
            }
        }
    }

    @Test
    void aRingThatDoubleDeliversFails() throws InterruptedException {
        Tally tally = new Tally(MEMBERS, MESSAGES);
        try (Ring ring = new Broken(tally, 2)) {
            Round round = Round.run(ring, tally, LIMIT);
            assertNotNull(round.problem());
            assertTrue(round.problem().startsWith("delivered"), round.problem());
        }
    }

    @Test
    void aRingThatDropsFails() throws InterruptedException {
        Tally tally = new Tally(MEMBERS, MESSAGES);
        try (Ring ring = new Broken(tally, 0)) {
            Round round = Round.run(ring, tally, Duration.ofMillis(500));
            assertEquals("the last member never received every message", round.problem());
        }
    }

    @Test
    void aClockStoppedBeforeTheLastArrivalFails() {
        Round early = new Round(1_000, 1, (long) MEMBERS * MESSAGES, (long) MEMBERS * MESSAGES, 2_000);
        assertTrue(early.problem().startsWith("the clock stopped"), early.problem());
    }

    /** Member 10 forwards each message COPIES times (0: drops them, 2: delivers them twice). */
    private static final class Broken implements Ring {
        private final List<Thread> threads = new ArrayList<>();
        private final List<BlockingQueue<String>> queues = new ArrayList<>();

        Broken(Tally tally, int copies) {
            for (int i = 0; i < tally.members(); i++) {
                queues.add(new LinkedBlockingQueue<>());
            }
            for (int i = 0; i < tally.members(); i++) {
                int index = i;
                BlockingQueue<String> in = queues.get(i);
                BlockingQueue<String> next = queues.get((i + 1) % tally.members());
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        while (true) {
                            String m = in.take();
                            if (tally.arrived(index)) {
                                for (int c = 0; c < (index == 10 ? copies : 1); c++) {
                                    next.put(m);
                                }
                            }
                        }
                    } catch (InterruptedException stopped) {
                        // closed
                    }
                }));
            }
        }

        @Override
        public void send(int messages) {
            for (int i = 0; i < messages; i++) {
                queues.get(0).add("Hi");
            }
        }

        @Override
        public void close() {
            threads.forEach(Thread::interrupt);
        }
    }
}
