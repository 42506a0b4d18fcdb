package tradebench.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import tradebench.db.OrderReads;
import tradebench.engine.Config;
import tradebench.wire.OrderViews;

/**
 * VIEWS: where {@code GET /orders/{id}} waits for its read (contract section 8, "The order view's
 * read path"). The setting is read here and only here.
 * <ul>
 * <li>{@code blocking} (default): on the request thread, as the 2012 servlet did; VIEW_LIMIT a
 *     semaphore taken without waiting.</li>
 * <li>{@code async}: a Servlet 3.0 asynchronous request; the read on a bulkhead of its own
 *     (READ_POOL threads, VIEW_LIMIT views in it), the asynchronous request's time-out its 504.</li>
 * <li>{@code resilience4j}: the same shape through Resilience4j's ThreadPoolBulkhead and TimeLimiter.</li>
 * </ul>
 */
public enum Views {
    BLOCKING("blocking"), ASYNC("async"), RESILIENCE4J("resilience4j");

    private final String wire;

    Views(String wire) {
        this.wire = wire;
    }

    public static Views of(Config config) {
        String v = config.extra("VIEWS", "blocking");
        for (Views mode : values()) {
            if (mode.wire.equals(v)) return mode;
        }
        throw new IllegalArgumentException("VIEWS must be blocking, async or resilience4j, not '" + v + "'");
    }

    public String wire() {
        return wire;
    }

    /** This mode's way of reading views through {@code reads}. */
    Door open(OrderReads reads) {
        return switch (this) {
            case BLOCKING -> new BlockingViews(reads);
            case ASYNC -> new AsyncViews(reads);
            case RESILIENCE4J -> new Resilience4jViews(reads);
        };
    }

    /** A mode's door to the read path: answers a view exactly once, 200/404, 503 or 504. */
    interface Door extends AutoCloseable {
        /**
         * Answers the view of {@code lookup} (made before its fills are read) whose deadline is
         * {@code deadlineNanos}; on return the answer is sent, or will be by the read path.
         */
        void view(OrderViews.Lookup lookup, long deadlineNanos, HttpServletRequest req, HttpServletResponse resp)
                throws IOException;

        @Override
        void close();
    }
}
