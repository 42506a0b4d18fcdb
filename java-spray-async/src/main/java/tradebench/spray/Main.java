package tradebench.spray;

import akka.actor.ActorSystem;
import akka.http.javadsl.HandlerProvider;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.CountDownLatch;
import tradebench.engine.Config;
import tradebench.engine.IdSource;
import tradebench.engine.OrderGateway;
import tradebench.engine.OrderRegistry;
import tradebench.engine.ServiceStats;
import tradebench.engine.Startup;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.engine.EngineSet;
import tradebench.spray.engine.Engines;
import tradebench.spray.http.ApiRoutes;

/**
 * java-spray-async: Akka HTTP + one actor per engine + jasync-mysql, on one execution context:
 * the engine-spray service with this wiring.
 */
public final class Main {
    public static final String VARIANT = "java-spray-async";

    /** The service alone: one {@link Engines} actor per engine, every id above the largest stored, the API's routes. */
    public static final SprayService.Wiring ALONE = new SprayService.Wiring() {
        @Override
        public com.typesafe.config.Config akka() {
            return ConfigFactory.empty();
        }

        @Override
        public IdSource ids(long largestStored) {
            return new IdSource(largestStored);
        }

        @Override
        public EngineSet engines(ActorSystem system, Config config, AsyncDatabase db, OrderRegistry registry, ServiceStats stats) {
            return Engines.start(system, config, db, registry, stats);
        }

        @Override
        public HandlerProvider server(ApiRoutes routes, EngineSet engines, OrderGateway gateway, AsyncDatabase db) {
            return routes;
        }
    };

    private Main() {
    }

    /** The service alone on {@code config} (tests start it so, in process). */
    public static SprayService start(Config config) throws Exception {
        return SprayService.start(VARIANT, config, ALONE);
    }

    public static void main(String[] args) throws InterruptedException {
        SprayService service = Startup.startOrExit(VARIANT, Main::start);
        CountDownLatch exitLinePrinted = service.drainOnSignal();
        service.whenTerminated().join();
        service.exitAfterDrain(exitLinePrinted);
    }
}
