package tradebench.threads.engine;

import java.util.Locale;
import tradebench.engine.Config;

/**
 * THREADS: what the engines (and Tomcat's request handlers, see
 * {@code tradebench.http.TomcatServer}) run on. {@code platform} is the 2014
 * design, one OS thread each; {@code virtual} runs the same blocking code on
 * Java 21 virtual threads.
 */
public enum ThreadKind {
    PLATFORM, VIRTUAL;

    public static ThreadKind of(Config config) {
        String v = config.extra("THREADS", "platform");
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "platform" -> PLATFORM;
            case "virtual" -> VIRTUAL;
            default -> throw new IllegalArgumentException("THREADS must be platform or virtual, not '" + v + "'");
        };
    }

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Starts {@code task} on a new thread of this kind. Platform engine threads keep the JVM alive. */
    Thread start(String name, Runnable task) {
        Thread.Builder builder = this == VIRTUAL ? Thread.ofVirtual() : Thread.ofPlatform().daemon(false);
        return builder.name(name).start(task);
    }
}
