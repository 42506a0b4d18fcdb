package tradebench.spray;

import tradebench.testing.ServiceContract;

/** The service behaviours every Java variant shows (ServiceContract), on java-spray-async. */
class ServiceContractIT extends ServiceContract {
    ServiceContractIT() {
        super("java-spray-async", Main::start, SprayService::port, SprayService::stats, SprayService::gateway,
                SprayService::drain);
    }

    /** An engine actor's next cycle is a scheduled message: the drain waits for it. */
    @Override
    protected boolean drainCutsTheSleepShort() {
        return false;
    }
}
