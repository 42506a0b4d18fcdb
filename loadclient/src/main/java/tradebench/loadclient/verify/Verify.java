package tradebench.loadclient.verify;

import java.io.PrintStream;

/** {@code loadclient verify}: every check of a running variant; the exit code. */
public final class Verify {

    private Verify() {}

    /** Runs the checks {@code options} describe; 0 when none failed, 1 otherwise. */
    public static int run(VerifyOptions options, PrintStream out) {
        return new Verifier(options, out).run().isEmpty() ? 0 : 1;
    }
}
