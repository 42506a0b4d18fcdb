package tradebench.threads.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.BiFunction;
import tradebench.engine.Config;
import tradebench.engine.OrderGateway;
import tradebench.engine.EngineStats;
import tradebench.engine.OrderRegistry;
import tradebench.engine.SalesPersister;
import tradebench.engine.ServiceStats;
import tradebench.engine.ThreadKind;
import tradebench.model.Market;
import tradebench.model.Order;

/**
 * The market partitioned over ENGINES engines, each on its own thread, and the
 * door the {@link OrderGateway} hands orders through. Each engine has its own
 * writer, made by the variant's design (java-threads: JDBC, per-sale inserts one
 * after another or one multi-row insert per cycle).
 */
public final class EngineThreads implements OrderGateway.EngineDoor {
    private final List<EngineThread> engines = new ArrayList<>();

    private EngineThreads() {
    }

    /** {@code markets} makes each engine's market (and a fresh one after a failed cycle). */
    public static EngineThreads start(Config config, ThreadKind kind, OrderRegistry registry, ServiceStats stats,
                                      Supplier<Market> markets,
                                      BiFunction<Config.PersistMode, EngineStats, SalesPersister> writers) {
        EngineThreads all = new EngineThreads();
        for (int i = 0; i < config.engines(); i++) {
            all.engines.add(new EngineThread(i, config.inboxLimit(), markets, config.timeoutMs(), config.delayMs(),
                    stats.engine(i), registry, writers.apply(config.persist(), stats.engine(i))));
        }
        for (EngineThread e : all.engines) e.start(kind);
        return all;
    }

    @Override
    public boolean offer(int engine, Order order) {
        return engines.get(engine).offer(order);
    }

    /** FAULTS=on: {@code POST /faults/crash-engine?engine=N} lands here (the engine's next cycle throws). */
    public void crash(int engine) {
        engines.get(engine).crash();
    }

    public EngineThread engine(int i) {
        return engines.get(i);
    }

    /**
     * SIGTERM: close every door, then let each engine run cycles until its inbox
     * is empty and every sale is stored (the engines drain side by side). Returns
     * when every engine thread has ended.
     */
    public void drain() throws InterruptedException {
        for (EngineThread e : engines) e.closeDoor();
        for (EngineThread e : engines) e.stopWhenEmpty();
        for (EngineThread e : engines) e.join();
    }
}
