package tradebench.testing;

/** Waiting in a test for something another thread does, with a deadline generous enough for a crowded machine. */
public final class Wait {
    private static final long DEADLINE_MS = 30_000;

    /** A condition that may throw (an HTTP call, a query). */
    @FunctionalInterface
    public interface Check {
        boolean holds() throws Exception;
    }

    private Wait() {
    }

    /** Returns once {@code condition} holds; fails the test naming {@code what} after 30 s. */
    public static void until(Check condition, String what) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MS;
        while (!condition.holds()) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("timed out waiting: " + what);
            Thread.sleep(10);
        }
    }
}
