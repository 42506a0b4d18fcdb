package tradebench.threads;

import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-threads. */
class ServiceContractIT extends ServiceContract {
    ServiceContractIT() {
        super("java-threads", config -> ThreadsService.start(Main.DESIGN, config), ThreadsService::port,
                ThreadsService::stats, ThreadsService::gateway, ThreadsService::drain);
    }
}
