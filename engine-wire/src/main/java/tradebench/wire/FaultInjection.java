package tradebench.wire;

import tradebench.engine.Config;

/**
 * Test-only fault injection for the reliability suite (crash isolation). With
 * {@code FAULTS=on} in the environment, {@code POST /faults/crash-engine?engine=N}
 * makes engine N fail the way its model fails: a Java engine thread throws, an
 * engine actor throws, a Node child process dies. Off (the default), the path
 * is unknown like any other: 404.
 */
public final class FaultInjection {
    public static final String PATH = "/faults/crash-engine";

    /** How a variant makes one of its engines fail. */
    @FunctionalInterface
    public interface EngineCrasher {
        void crash(int engine);
    }

    private FaultInjection() {
    }

    public static boolean enabled(Config config) {
        return "on".equalsIgnoreCase(config.extra("FAULTS", "off"));
    }

    /** The crasher when FAULTS=on, else null (the path is then unknown: 404). */
    public static EngineCrasher ifEnabled(EngineCrasher crasher, Config config) {
        return crasher != null && enabled(config) ? crasher : null;
    }

    /** The engine number of the request; 400 when it is not one of this service's engines. */
    public static int engine(String value, Config config) throws BadRequest {
        if (value == null || !value.matches("[0-9]{1,4}") || Integer.parseInt(value) >= config.engines()) {
            throw new BadRequest("engine must be an integer in 0.." + (config.engines() - 1));
        }
        return Integer.parseInt(value);
    }

    public static String accepted(int engine) {
        return "{\"engine\":" + engine + ",\"status\":\"crashing\"}";
    }
}
