package tradebench.spray.cluster;

import akka.actor.ActorSystem;
import tradebench.engine.Config;
import tradebench.engine.EngineStats;
import tradebench.engine.SalesPersister;
import tradebench.engine.ServiceStats;
import tradebench.spray.db.AsyncDatabase;
import tradebench.spray.cluster.db.HandoverStore;

/** What every partition entity on this member shares: the member's settings, database, hand-over store and counters. */
public record ClusterNode(ActorSystem system, Config config, ClusterSettings settings, AsyncDatabase db,
                          HandoverStore handover, ServiceStats stats, Hosted hosted) {
    /** The sales writer of a partition running here: this member's pool, its counters. */
    SalesPersister writer(EngineStats engineStats) {
        return db.writer(config.persist(), engineStats);
    }
}
