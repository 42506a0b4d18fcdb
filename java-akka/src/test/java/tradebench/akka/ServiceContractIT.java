package tradebench.akka;

import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-akka. */
class ServiceContractIT extends ServiceContract {
    @Override
    protected String module() {
        return "java-akka";
    }

    @Override
    protected String variant() {
        return "java-akka";
    }

    @Override
    protected Running start(Config config) throws Exception {
        AkkaService service = AkkaService.start(config);
        return new Running() {
            public int port() { return service.port(); }
            public ServiceStats stats() { return service.stats(); }
            public OrderGateway gateway() { return service.gateway(); }
            public void drain() { service.drain(); }
        };
    }
}
