package tradebench.spray;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tradebench.engine.Shutdown;
import tradebench.engine.Startup;

/** java-spray-async: Akka HTTP + one actor per engine + jasync-mysql, on one execution context. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        SprayService service = Startup.startOrExit(SprayService.VARIANT, SprayService::start);
        CountDownLatch exitLinePrinted = new CountDownLatch(1);
        Shutdown.onSignal(() -> {
            service.drain();
            System.out.println(service.stats().exitLine());
            exitLinePrinted.countDown();
        });
        System.out.println(SprayService.VARIANT + " listening on port " + service.port() + " (" + service.config().describe()
                + " dispatcherThreads=" + service.dispatcherThreads() + ")");

        // Shutdown's drain thread is a daemon (it inherits from the signal thread): once the
        // actor system is gone, nothing else would keep the JVM up until the exit line is printed
        // and the exit code is set. The main thread does.
        service.whenTerminated().join();
        if (!exitLinePrinted.await(60, TimeUnit.SECONDS)) {
            System.err.println(SprayService.VARIANT + ": the actor system stopped without a drain");
            System.exit(1);
        }
        Thread.currentThread().join(); // Shutdown's thread exits the JVM (0, or 1 if the drain failed)
    }
}
