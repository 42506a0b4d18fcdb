package tradebench.db;

import java.io.Serial;

/** A view's read did not come back before its deadline (READ_TIMEOUT_MS): answered 504, not 503. */
public final class ReadTimedOut extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    public ReadTimedOut(String message, Throwable cause) {
        super(message, cause);
    }
}
