package tradebench.engine;

import java.util.Locale;

/**
 * THREADS, read here only: what java-threads' engines and the servlet variants'
 * Tomcat request handlers ({@code tradebench.http.TomcatServer}) run on.
 * {@code platform} is the 2014 design, one OS thread each; {@code virtual} runs
 * the same blocking code on virtual threads. The value is case-insensitive.
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
    public Thread start(String name, Runnable task) {
        Thread.Builder builder = this == VIRTUAL ? Thread.ofVirtual() : Thread.ofPlatform().daemon(false);
        return builder.name(name).start(task);
    }
}
