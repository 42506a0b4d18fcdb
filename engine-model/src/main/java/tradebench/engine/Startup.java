package tradebench.engine;

/**
 * A variant's start, as contract section 5 wants it: the settings from the
 * environment, then the service. A bad setting stops the process with exit
 * code 2 and a message naming it; any other failure to start, with exit code 1.
 */
public final class Startup {
    /** Starts a variant's service from its settings. */
    @FunctionalInterface
    public interface Starter<S> {
        S start(Config config) throws Exception;
    }

    private Startup() {
    }

    /** The started service; on failure the process exits (2: a bad setting, 1: anything else). */
    public static <S> S startOrExit(String variant, Starter<S> starter) {
        try {
            return starter.start(Config.fromEnv());
        } catch (IllegalArgumentException e) {
            System.err.println(variant + ": " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println(variant + ": cannot start: " + e);
            System.exit(1);
        }
        throw new IllegalStateException("unreachable: System.exit returned");
    }
}
