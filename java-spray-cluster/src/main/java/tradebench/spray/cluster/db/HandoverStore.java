package tradebench.spray.cluster.db;

import com.github.jasync.sql.db.RowData;
import java.util.List;
import java.util.concurrent.CompletionStage;
import tradebench.spray.db.AsyncDatabase;

/**
 * The hand-over of a partition (table {@code ENGINE_HANDOVER} of
 * schema.sql, one row per engine), over the service's jasync pool:
 * <ul>
 * <li>{@link #claim}: a partition's new incarnation reads the row and marks it
 *     {@code running}: {@code handed-over} gives it the open orders its
 *     predecessor wrote; {@code running} means the predecessor never handed
 *     over (its member crashed); no row, the partition never ran on this database;</li>
 * <li>{@link #save}: a partition leaving its member writes its open orders (JSON)
 *     with {@code handed-over}.</li>
 * </ul>
 * Cluster Sharding runs at most one incarnation of a partition at a time, so
 * the read and the write of a claim need no lock. A claim whose write failed
 * is tried again from the read, which then still shows the predecessor's state.
 */
public final class HandoverStore {
    public enum Previous { NONE, RUNNING, HANDED_OVER }

    /** What a new incarnation found: the previous state, and the orders handed over (JSON, or null). */
    public record Claim(Previous previous, String orders) {
    }

    static final String CREATE = "CREATE TABLE IF NOT EXISTS ENGINE_HANDOVER (ENGINE INT NOT NULL, STATE VARCHAR(16) NOT NULL,"
            + " ORDERS LONGTEXT NULL, UPDATED BIGINT NOT NULL, PRIMARY KEY (ENGINE)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
    static final String READ = "SELECT STATE, ORDERS FROM ENGINE_HANDOVER WHERE ENGINE = ?";
    static final String WRITE = "INSERT INTO ENGINE_HANDOVER (ENGINE, STATE, ORDERS, UPDATED) VALUES (?, ?, ?, ?)"
            + " ON DUPLICATE KEY UPDATE STATE = VALUES(STATE), ORDERS = VALUES(ORDERS), UPDATED = VALUES(UPDATED)";

    private final AsyncDatabase db;

    public HandoverStore(AsyncDatabase db) {
        this.db = db;
    }

    /** The table, for a database made before it was in schema.sql (the service's user may create tables). */
    public CompletionStage<Void> ensureTable() {
        return db.query(CREATE).thenApply(r -> null);
    }

    public CompletionStage<Claim> claim(int engine) {
        return db.prepared(READ, List.of(engine)).thenCompose(r -> {
            Claim c;
            if (r.getRows().isEmpty()) {
                c = new Claim(Previous.NONE, null);
            } else {
                RowData row = r.getRows().get(0);
                boolean handedOver = "handed-over".equals(row.get(0));
                c = new Claim(handedOver ? Previous.HANDED_OVER : Previous.RUNNING, handedOver ? (String) row.get(1) : null);
            }
            return db.prepared(WRITE, java.util.Arrays.asList(engine, "running", null, System.currentTimeMillis()))
                    .thenApply(w -> c);
        });
    }

    public CompletionStage<Void> save(int engine, String ordersJson) {
        return db.prepared(WRITE, List.of(engine, "handed-over", ordersJson, System.currentTimeMillis())).thenApply(r -> null);
    }
}
