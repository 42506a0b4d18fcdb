package tradebench.virtual;

import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.testing.ServiceContract;
import tradebench.threads.ThreadsService;

/** The service behaviours every Java variant shows (ServiceContract), on java-virtual. */
class ServiceContractIT extends ServiceContract {
    @Override
    protected String module() {
        return "java-virtual";
    }

    @Override
    protected String variant() {
        return "java-virtual";
    }

    @Override
    protected Running start(Config config) throws Exception {
        ThreadsService service = ThreadsService.start(Main.DESIGN, config);
        return new Running() {
            public int port() { return service.port(); }
            public ServiceStats stats() { return service.stats(); }
            public OrderGateway gateway() { return service.gateway(); }
            public void drain() { service.drain(); }
        };
    }
}
