package tradebench.threads;

import java.util.concurrent.CountDownLatch;
import tradebench.engine.Shutdown;
import tradebench.engine.Startup;

/**
 * java-threads: embedded Tomcat (NIO, 200 request threads, 10,000 connections),
 * one thread per engine, blocking JDBC. Settings: contract section 5, plus
 * THREADS (platform | virtual), HTTP_THREADS, MAX_CONNECTIONS (README).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        ThreadsService service = Startup.startOrExit(ThreadsService.VARIANT, ThreadsService::start);
        CountDownLatch drained = new CountDownLatch(1);
        Shutdown.onSignal(() -> {
            System.out.println(service.drain());
            drained.countDown();
        });
        System.out.println(service.describe());
        // Virtual engine threads do not keep the JVM alive: main waits for the drain (Shutdown exits).
        drained.await();
    }
}
