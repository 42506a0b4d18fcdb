package tradebench.engine;

/**
 * The SQL of table SALES (contract section 4, schema.sql), written once for both
 * Java drivers: Connector/J (engine-jdbc) and jasync-mysql (java-spray-async).
 *
 * <p>Every insert is {@code ... ON DUPLICATE KEY UPDATE ID = ID} over the unique
 * (PO_ID, SO_ID): when a connection dies after the server committed but before
 * the writer heard so, the retry stores nothing twice.
 */
public final class SalesTable {
    /** Rows per multi-row INSERT in batch mode: a cycle of a loaded engine is one statement, well under max_allowed_packet. */
    public static final int CHUNK = 1000;
    /** Followed by the rows, then {@link #IDEMPOTENT}. */
    public static final String INSERT = "INSERT INTO SALES (BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED) VALUES ";
    public static final String IDEMPOTENT = " ON DUPLICATE KEY UPDATE ID = ID";
    /** The placeholders of one row, in the column order of {@link #INSERT}. */
    public static final String ROW = "(?,?,?,?,?,?,?,?)";
    /** One sale, as a prepared statement (per-sale mode). */
    public static final String INSERT_ONE = INSERT + ROW + IDEMPOTENT;
    /** The largest order id stored: the floor of the ids a process issues. */
    public static final String LARGEST_ORDER_ID = "SELECT COALESCE(MAX(PO_ID), 0), COALESCE(MAX(SO_ID), 0) FROM SALES";
    /** The rows of one order (bound twice: PO_ID, SO_ID), by ID; the columns of {@link Fill}. */
    public static final String FILLS = "SELECT ID, BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED"
            + " FROM SALES WHERE PO_ID = ? UNION ALL"
            + " SELECT ID, BUYER_NAME, SELLER_NAME, PRODUCT_ID, PRICE, QUANTITY, PO_ID, SO_ID, CREATED"
            + " FROM SALES WHERE SO_ID = ? ORDER BY ID";
    /** The cheapest query that needs the server. */
    public static final String PING = "SELECT 1";

    private SalesTable() {
    }

    /** A multi-row INSERT of {@code rows} placeholder rows. */
    public static String insertRows(int rows) {
        StringBuilder sb = new StringBuilder(INSERT.length() + rows * (ROW.length() + 1) + IDEMPOTENT.length());
        sb.append(INSERT);
        for (int i = 0; i < rows; i++) {
            if (i > 0) sb.append(',');
            sb.append(ROW);
        }
        return sb.append(IDEMPOTENT).toString();
    }
}
