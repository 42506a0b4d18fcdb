package tradebench.wire;

import java.io.Serial;

/** Bad input: answered 4xx with {"error": message}; never reaches an engine. */
public final class BadRequest extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;
    private final int status;

    public BadRequest(String message) {
        this(400, message);
    }

    public BadRequest(int status, String message) {
        super(message, null, false, false); // no stack trace: bad input is not exceptional here
        this.status = status;
    }

    public int status() {
        return status;
    }
}
