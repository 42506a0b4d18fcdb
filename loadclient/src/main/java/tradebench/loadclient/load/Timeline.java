package tradebench.loadclient.load;

/**
 * The instants of a run on the monotonic clock (nanoTime) and their wall-clock
 * equivalents (ms since the epoch, what SALES.CREATED holds).
 *
 * <p>With a fixed warm-up the measured window is known from the start. With
 * {@code --warmup auto} it is opened later, once the load is steady (or the
 * warm-up limit passed): until then it lies at the end of time, so every
 * request counts as warm-up and no worker stops. The window is one immutable
 * pair behind a volatile reference, so a worker never sees a new start with
 * an old end.
 */
final class Timeline {

    /** The measured window {@code [startNs, endNs)}. */
    record Window(long startNs, long endNs) {
        boolean contains(long ns) {
            return ns >= startNs && ns < endNs;
        }

        /** The end of the window's first half (the halves of the drift check). */
        long midNs() {
            return startNs + (endNs - startNs) / 2;
        }

        boolean open() {
            return endNs != Long.MAX_VALUE;
        }
    }

    private static final Window NOT_YET = new Window(Long.MAX_VALUE, Long.MAX_VALUE);

    private final long startNs;
    private final long startWallMs;
    private volatile Window window;

    private Timeline(long startNs, long startWallMs, Window window) {
        this.startNs = startNs;
        this.startWallMs = startWallMs;
        this.window = window;
    }

    /** A fixed warm-up: the window is {@code [now + warmup, now + warmup + duration)}. */
    static Timeline starting(long nowNs, long nowWallMs, double warmupS, double durationS) {
        long warm = (long) (warmupS * 1e9);
        long dur = (long) (durationS * 1e9);
        return new Timeline(nowNs, nowWallMs, new Window(nowNs + warm, nowNs + warm + dur));
    }

    /** A window that opens at the wall-clock instant {@code windowAtMs} ({@code --window-at}). */
    static Timeline startingAt(long nowNs, long nowWallMs, long windowAtMs, double durationS) {
        long warm = (windowAtMs - nowWallMs) * 1_000_000L;
        long dur = (long) (durationS * 1e9);
        return new Timeline(nowNs, nowWallMs, new Window(nowNs + warm, nowNs + warm + dur));
    }

    /** A warm-up of unknown length: the window is opened by {@link #openWindow}. */
    static Timeline startingOpenEnded(long nowNs, long nowWallMs) {
        return new Timeline(nowNs, nowWallMs, NOT_YET);
    }

    /** Starts the measured window at {@code startNs} (auto warm-up). */
    void openWindow(long windowStartNs, double durationS) {
        window = new Window(windowStartNs, windowStartNs + (long) (durationS * 1e9));
    }

    Window window() {
        return window;
    }

    long startNs() {
        return startNs;
    }

    long measureStartNs() {
        return window.startNs();
    }

    long measureEndNs() {
        return window.endNs();
    }

    boolean measured(long intendedNs) {
        return window.contains(intendedNs);
    }

    long wallMs(long ns) {
        return startWallMs + (ns - startNs) / 1_000_000;
    }

    /**
     * When a fixed-rate worker still behind schedule gives up: the window's end
     * plus 1 s + 10 % of the window (never while the window is not open yet).
     */
    long giveUpNs() {
        Window w = window;
        if (!w.open()) return Long.MAX_VALUE;
        return w.endNs() + 1_000_000_000L + (w.endNs() - w.startNs()) / 10;
    }

    double measuredSeconds() {
        Window w = window;
        return (w.endNs() - w.startNs()) / 1e9;
    }
}
