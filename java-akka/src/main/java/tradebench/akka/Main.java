package tradebench.akka;

import java.util.concurrent.CountDownLatch;
import tradebench.engine.Shutdown;
import tradebench.engine.Startup;

/**
 * java-akka: embedded Tomcat (NIO, 200 request threads, 10,000 connections)
 * with the shared servlet in front, one Akka actor per engine behind it,
 * blocking JDBC on a dispatcher of its own. Settings: contract section 5, plus
 * DISPATCHER (thread-pool | fork-join), PERSIST_THREADS, HTTP_THREADS,
 * MAX_CONNECTIONS, THREADS (README).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        AkkaService service = Startup.startOrExit(AkkaService.VARIANT, AkkaService::start);
        Shutdown.onSignal(() -> System.out.println(service.drain()));
        System.out.println(service.describe());
        // Only Shutdown ends the process: its thread (not a daemon) drains, prints
        // the exit line and calls System.exit. main waits here so that the JVM's
        // life never depends on which other threads happen to be daemons
        // (Tomcat's are; Akka's are not).
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
