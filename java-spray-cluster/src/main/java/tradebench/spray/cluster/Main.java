package tradebench.spray.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import tradebench.engine.Startup;
import tradebench.spray.SprayService;

/** java-spray-cluster: one member of a cluster of java-spray-async services (README), on engine-spray's service. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        ClusterMember member = Startup.startOrExit(ClusterMember.VARIANT, ClusterMember::start);
        SprayService service = member.service();
        CountDownLatch exitLinePrinted = service.drainOnSignal();
        CompletableFuture.anyOf(service.whenTerminated(), member.whenDownedAndClosed()).join();
        if (member.downed() && exitLinePrinted.getCount() > 0) {
            // contract section 9: a member the cluster downed exits at once, with 1 (a process started
            // again joins as a new member). Its partitions are stopped and its pool closed; halt rather
            // than exit, since the JVM's shutdown hook would wait for the actor system's termination,
            // which may hang on connections to the members it was cut off from.
            System.out.println(service.stats().exitLine());
            System.err.println(ClusterMember.VARIANT + ": downed by the cluster (cut off from the majority of its members); exiting");
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        service.exitAfterDrain(exitLinePrinted);
    }
}
