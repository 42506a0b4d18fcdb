package tradebench.threads;

import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-threads. */
class ServiceContractIT extends ServiceContract {
    ServiceContractIT() {
        super("java-threads", ThreadsService::start, ThreadsService::port, ThreadsService::stats,
                ThreadsService::gateway, ThreadsService::drain);
    }
}
