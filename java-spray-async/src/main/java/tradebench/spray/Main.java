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

        // Only Shutdown ends the process: its thread (not a daemon) drains, prints the exit
        // line and calls System.exit with the code. main waits for the actor system; if the
        // system stops with no drain under way (it failed on its own), main exits 1 instead of
        // leaving a process that serves nothing. A member the cluster downed exits 1 at once.
        java.util.concurrent.CompletableFuture.anyOf(service.whenTerminated(), service.whenDownedAndClosed()).join();
        if (service.downed() && exitLinePrinted.getCount() > 0) {
            // contract section 9: a member the cluster downed exits at once, with 1 (a process started
            // again joins as a new member). Its partitions are stopped and its pool closed; halt rather
            // than exit, since the JVM's shutdown hook would wait for the actor system's termination,
            // which may hang on connections to the members it was cut off from.
            System.out.println(service.stats().exitLine());
            System.err.println(SprayService.VARIANT + ": downed by the cluster (cut off from the majority of its members); exiting");
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        if (!exitLinePrinted.await(60, TimeUnit.SECONDS)) {
            System.err.println(SprayService.VARIANT + ": the actor system stopped without a drain");
            System.exit(1);
        }
        Thread.currentThread().join(); // Shutdown's thread exits the JVM (0, or 1 if the drain failed)
    }
}
