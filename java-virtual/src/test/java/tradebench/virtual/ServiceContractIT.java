package tradebench.virtual;

import tradebench.testing.ServiceContract;
import tradebench.threads.ThreadsService;

/** The service behaviours every Java variant shows (ServiceContract), on java-virtual: java-threads' service on its design. */
class ServiceContractIT extends ServiceContract {
    ServiceContractIT() {
        super("java-virtual", config -> ThreadsService.start(Main.DESIGN, config), ThreadsService::port,
                ThreadsService::stats, ThreadsService::gateway, ThreadsService::drain);
    }
}
