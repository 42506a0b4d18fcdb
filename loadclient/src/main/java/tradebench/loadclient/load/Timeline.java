package tradebench.loadclient.load;

/**
 * The instants of a run on the monotonic clock (nanoTime) and their wall-clock
 * equivalents (ms since the epoch, what SALES.CREATED holds).
 */
record Timeline(long startNs, long measureStartNs, long measureEndNs, long startWallMs) {

    static Timeline starting(long nowNs, long nowWallMs, double warmupS, double durationS) {
        long warm = (long) (warmupS * 1e9);
        long dur = (long) (durationS * 1e9);
        return new Timeline(nowNs, nowNs + warm, nowNs + warm + dur, nowWallMs);
    }

    boolean measured(long intendedNs) {
        return intendedNs >= measureStartNs && intendedNs < measureEndNs;
    }

    long wallMs(long ns) {
        return startWallMs + (ns - startNs) / 1_000_000;
    }

    /** How long past the window a fixed-rate worker may catch up: 1 s + 10 % of the window. */
    long graceNs() {
        return 1_000_000_000L + (measureEndNs - measureStartNs) / 10;
    }

    double measuredSeconds() {
        return (measureEndNs - measureStartNs) / 1e9;
    }
}
