package tradebench.spray.engine;

import akka.actor.AbstractActorWithTimers;
import akka.actor.ActorRef;
import akka.actor.Props;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import tradebench.engine.EngineProtocol.Crash;
import tradebench.engine.EngineProtocol.Drain;
import tradebench.engine.EngineProtocol.Drained;
import tradebench.engine.EngineProtocol.NewOrder;
import tradebench.engine.EngineProtocol.Run;
import tradebench.engine.Partition;
import tradebench.engine.TradingEngine;
import tradebench.model.Market;

/**
 * One engine (one partition of the products) as an actor: the 2014 original's
 * engine actor. Its messages are {@link tradebench.engine.EngineProtocol}'s, as
 * in java-akka; its cycle is {@link EngineCycle}'s.
 * <ul>
 * <li>{@link NewOrder}: the order waits until the next cycle;</li>
 * <li>{@link Run}: one cycle (join, time out, trade); its inserts are fired and
 *     the cycle returns at once;</li>
 * <li>{@link EngineCycle.Stored}: sent by the writer's callback when the last
 *     insert is acknowledged; only then is the next {@code Run} scheduled,
 *     {@code DELAY_MS} later, on Akka's scheduler.</li>
 * </ul>
 * No thread ever waits for the database. An engine with nothing to trade or
 * time out schedules no cycle until an order arrives.
 */
public final class EngineActor extends AbstractActorWithTimers {
    private final Partition part;
    private final EngineCycle cycle;
    private final List<ActorRef> drainWaiters = new ArrayList<>();
    /** Nothing to trade and nothing to time out: no cycle is scheduled until an order arrives. */
    private boolean idle = true;
    /**
     * Drained: no more cycles (as java-akka's engine). A later cycle could still trade (a buyer meets one
     * seller per cycle) and make sales nobody stores: the service closes the database pool once every
     * engine said Drained, and such a cycle's inserts then failed or committed uncounted.
     */
    private boolean stopped;

    /** The market is made anew by each instance: a restarted engine starts empty. */
    public static Props props(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets) {
        return Props.create(EngineActor.class, () -> new EngineActor(part, delayMs, timeoutMs, markets));
    }

    private EngineActor(Partition part, long delayMs, long timeoutMs, Supplier<Market> markets) {
        this.part = part;
        TradingEngine engine = new TradingEngine(markets.get(), timeoutMs, part.stats(), part.registry());
        this.cycle = new EngineCycle(part.engine(), engine, part.writer(), part.limit(), delayMs);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(NewOrder.class, m -> {
                    cycle.arrive(m.order());
                    wake();
                })
                .match(Run.class, r -> onRun())
                .match(EngineCycle.Stored.class, this::onStored)
                .match(Drain.class, d -> onDrain())
                .match(Crash.class, c -> {
                    cycle.crashNext();
                    wake();
                })
                .build();
    }

    private void onRun() {
        if (stopped) return; // a Run already scheduled when the drain was answered
        EngineCycle.Stored none = cycle.run(getSelf());
        if (none != null) onStored(none);
    }

    private void onStored(EngineCycle.Stored m) {
        cycle.stored(m);
        cycleDone();
    }

    /**
     * A cycle threw: this instance and its market go, the partition stays (the
     * default supervision restarts the actor with a new, empty market;
     * {@link EngineCycle#abandon}: the orders open here are forgotten, the
     * orders still in the mailbox survive the restart and join the new market,
     * sales already stored stay stored and counted). A drain being waited for
     * is passed on to the new instance.
     */
    @Override
    public void preRestart(Throwable reason, Optional<Object> message) throws Exception {
        int lost = cycle.abandon();
        System.err.println("engine " + part.engine() + ": restarting after " + reason + "; " + lost + " open orders lost");
        for (ActorRef w : drainWaiters) getSelf().tell(Drain.INSTANCE, w);
        super.preRestart(reason, message);
    }

    private void onDrain() {
        if (stopped) {
            getSender().tell(new Drained(part.engine()), getSelf());
            return;
        }
        drainWaiters.add(getSender());
        if (!cycle.persisting() && idle) answerDrainWaiters();
    }

    /** The cycle and its storage are over: answer a drain, then schedule the next cycle (or rest). */
    private void cycleDone() {
        answerDrainWaiters();
        if (stopped) return;
        if (cycle.hasWork()) cycle.schedule(getSelf(), getTimers());
        else idle = true; // an arriving order wakes the engine
    }

    private void answerDrainWaiters() {
        if (drainWaiters.isEmpty() || part.limit().pending() > 0) return;
        for (ActorRef w : drainWaiters) w.tell(new Drained(part.engine()), getSelf());
        drainWaiters.clear();
        // the gateway was closed before the drain began: no order can come after this answer
        stopped = true;
    }

    private void wake() {
        if (idle && !stopped) {
            idle = false;
            cycle.schedule(getSelf(), getTimers());
        }
    }
}
