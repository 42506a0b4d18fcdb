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
        CountDownLatch exitLinePrinted = drainOnSignal(service);
        service.whenTerminated().join();
        exitAfterDrain(exitLinePrinted);
    }

    /**
     * SIGTERM (or Ctrl-C) drains the service and prints its exit line; the
     * returned latch opens once it is printed. Prints the "listening" line.
     */
    public static CountDownLatch drainOnSignal(SprayService service) {
        CountDownLatch exitLinePrinted = new CountDownLatch(1);
        Shutdown.onSignal(() -> {
            service.drain();
            System.out.println(service.stats().exitLine());
            exitLinePrinted.countDown();
        });
        System.out.println(SprayService.VARIANT + " listening on port " + service.port() + " (" + service.config().describe()
                + " dispatcherThreads=" + service.dispatcherThreads() + ")");
        return exitLinePrinted;
    }

    /**
     * The actor system has stopped. Only Shutdown ends the process: its thread
     * (not a daemon) drains, prints the exit line and calls System.exit with
     * the code. If the system stopped with no drain under way (it failed on
     * its own), exits 1 instead of leaving a process that serves nothing.
     */
    public static void exitAfterDrain(CountDownLatch exitLinePrinted) throws InterruptedException {
        if (!exitLinePrinted.await(60, TimeUnit.SECONDS)) {
            System.err.println(SprayService.VARIANT + ": the actor system stopped without a drain");
            System.exit(1);
        }
        Thread.currentThread().join(); // Shutdown's thread exits the JVM (0, or 1 if the drain failed)
    }
}
