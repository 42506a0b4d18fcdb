package tradebench.ring;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * One timed round of a ring: the messages sent, the clock stopped when the last arrives, the counts checked.
 *
 * @param wallNanos from the first send until the wait for the last arrival returned
 * @param cpuNanos  the process's CPU time over the round (every thread's, the idle pool's too)
 * @param received  hand-overs counted when the last arrived
 * @param expected  members x messages
 * @param lastArrivalNanos the last arrival, from the first send
 */
public record Round(long wallNanos, long cpuNanos, long received, long expected, long lastArrivalNanos) {

    /** Why the round does not count (null when it does): a ring that drops, double-delivers or stops early fails. */
    public String problem() {
        if (lastArrivalNanos <= 0) {
            return "the last member never received every message";
        }
        if (received != expected) {
            return "delivered " + received + " hand-overs, expected members x messages = " + expected;
        }
        if (wallNanos < lastArrivalNanos) {
            return "the clock stopped " + (lastArrivalNanos - wallNanos) + " ns before the last arrival";
        }
        return null;
    }

    public static Round run(Ring ring, Tally tally, Duration timeout) throws InterruptedException {
        tally.begin();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        ring.send(tally.messages());
        boolean complete = tally.await(timeout);
        long t1 = System.nanoTime();
        long cpu1 = processCpuNanos();
        long last = complete ? tally.lastArrivalNanos() - t0 : 0;
        return new Round(t1 - t0, cpu1 - cpu0, tally.received(), (long) tally.members() * tally.messages(), last);
    }

    /** The process's CPU time: every thread of the JVM, which is what a hand-over costs the machine. */
    public static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }
}
