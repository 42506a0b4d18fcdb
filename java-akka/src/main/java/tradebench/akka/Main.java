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
        // Only Shutdown ends the process (System.exit after the drain). Its drain
        // thread is a daemon, and the drain ends the actor system's and Tomcat's
        // threads: were main to return, the JVM would exit 0 as soon as those
        // are gone, before the pool is closed and the exit line printed.
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
