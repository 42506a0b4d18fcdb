package tradebench.threads;

import tradebench.db.Database;
import tradebench.engine.ThreadKind;

/**
 * java-threads: embedded Tomcat (NIO, 200 request threads, 10,000 connections),
 * one thread per engine, blocking JDBC: the engine-threads service with this
 * design. Settings: contract section 5, plus THREADS (platform | virtual),
 * HTTP_THREADS, MAX_CONNECTIONS (README).
 */
public final class Main {
    public static final String VARIANT = "java-threads";

    /** THREADS (platform or virtual) for Tomcat and the engines, each engine storing its sales one INSERT after another. */
    public static final ThreadsService.Design DESIGN = new ThreadsService.Design(
            VARIANT, ThreadKind::of, Database::new, (config, db) -> db::writer);

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        ThreadsService.serve(DESIGN, config -> ThreadsService.start(DESIGN, config));
    }
}
