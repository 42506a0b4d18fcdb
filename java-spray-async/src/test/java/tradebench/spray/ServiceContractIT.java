package tradebench.spray;

import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.ServiceStats;
import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-spray-async. */
class ServiceContractIT extends ServiceContract {
    @Override
    protected String module() {
        return "java-spray-async";
    }

    @Override
    protected String variant() {
        return "java-spray-async";
    }

    /** An engine actor's next cycle is a scheduled message: the drain waits for it. */
    @Override
    protected boolean drainCutsTheSleepShort() {
        return false;
    }

    @Override
    protected Running start(Config config) throws Exception {
        SprayService service = SprayService.start(config);
        return new Running() {
            public int port() { return service.port(); }
            public ServiceStats stats() { return service.stats(); }
            public OrderGateway gateway() { return service.gateway(); }
            public void drain() { service.drain(); }
        };
    }
}
