package tradebench.loadclient.audit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Prints each check as it passes or fails and keeps the failures (the exit code). */
public final class Report {

    /** One broken rule; {@code check} names the rule (tests match on it). */
    public record Failure(String check, String message) {
        @Override
        public String toString() {
            return check + ": " + message;
        }
    }

    /** More failures of one rule than this are counted, not printed: one broken rule can break thousands of rows. */
    private static final int PRINT_LIMIT = 10;

    private final PrintStream out;
    private final List<Failure> failures = new ArrayList<>();
    private final Map<String, Integer> perCheck = new HashMap<>();
    private int passed;

    public Report(PrintStream out) {
        this.out = out;
    }

    public synchronized void ok(String check, String message) {
        passed++;
        out.println("ok   " + check + ": " + message);
    }

    public synchronized void fail(String check, String message) {
        failures.add(new Failure(check, message));
        int n = perCheck.merge(check, 1, Integer::sum);
        if (n <= PRINT_LIMIT) out.println("FAIL " + check + ": " + message);
        else if (n == PRINT_LIMIT + 1) out.println("FAIL " + check + ": (more failures of this check are counted, not printed)");
    }

    public synchronized void note(String message) {
        out.println("     " + message);
    }

    /** Fails {@code check} unless {@code condition}; returns the condition. */
    public boolean expect(boolean condition, String check, String failure) {
        if (!condition) fail(check, failure);
        return condition;
    }

    public synchronized int failureCount(String check) {
        return perCheck.getOrDefault(check, 0);
    }

    public synchronized List<Failure> failures() {
        return List.copyOf(failures);
    }

    public synchronized void summary() {
        if (failures.isEmpty()) {
            out.println("verify: all " + passed + " checks passed");
        } else {
            out.println("verify: " + failures.size() + " failures (" + perCheck + "), " + passed + " checks passed");
        }
    }
}
