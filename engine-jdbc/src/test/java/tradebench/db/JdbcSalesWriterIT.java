package tradebench.db;

import tradebench.testing.SalesWriterContract;

/** The blocking JDBC writer against the real private database: the writers' contract. */
class JdbcSalesWriterIT extends SalesWriterContract {
    JdbcSalesWriterIT() {
        super(config -> {
            Database db = new Database(config);
            return new Writers(db::writer, db::close);
        });
    }
}
