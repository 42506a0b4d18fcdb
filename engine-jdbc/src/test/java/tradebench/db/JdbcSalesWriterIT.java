package tradebench.db;

import tradebench.engine.Config;
import tradebench.testing.SalesWriterContract;
import tradebench.testing.TestDatabase;

/** The blocking JDBC writer against the real private database: the writers' contract. */
class JdbcSalesWriterIT extends SalesWriterContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.forModule("engine-model");
    }

    @Override
    protected Writers open(Config config) {
        Database db = new Database(config);
        return new Writers(db::writer, db);
    }
}
