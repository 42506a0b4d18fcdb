package tradebench.akka;

import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-akka. */
class ServiceContractIT extends ServiceContract {
    ServiceContractIT() {
        super("java-akka", AkkaService::start, AkkaService::port, AkkaService::stats, AkkaService::gateway,
                AkkaService::drain);
    }
}
