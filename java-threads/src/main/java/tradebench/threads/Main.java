package tradebench.threads;

/**
 * java-threads: embedded Tomcat (NIO, 200 request threads, 10,000 connections),
 * one thread per engine, blocking JDBC. Settings: contract section 5, plus
 * THREADS (platform | virtual), HTTP_THREADS, MAX_CONNECTIONS (README).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        ThreadsService.serve(ThreadsService.THREADS, ThreadsService::start);
    }
}
