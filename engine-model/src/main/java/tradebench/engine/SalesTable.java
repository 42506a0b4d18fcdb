package tradebench.engine;

import java.util.List;
import tradebench.model.Prices;
import tradebench.model.Sale;

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

    /**
     * The multi-row INSERT of batch mode, as text (both Java writers send it as a plain statement):
     * a driver's prepared statement with {@code 8 x rows} placeholders costs more to parse and bind
     * than the rows cost to write (java-threads' profile, engine-jdbc), and one per row count would
     * fill the server's statement cache. User ids are validated ({@code [A-Za-z0-9_.-]}), but quoted
     * with care all the same.
     */
    public static String insertText(List<Sale> rows, long created) {
        StringBuilder sb = new StringBuilder(INSERT.length() + rows.size() * 80 + IDEMPOTENT.length()).append(INSERT);
        for (int i = 0; i < rows.size(); i++) {
            Sale s = rows.get(i);
            if (i > 0) sb.append(',');
            sb.append('(');
            quote(sb, s.buyer()).append(',');
            quote(sb, s.seller()).append(",'").append(s.productId()).append("',");
            appendPrice(sb, s.priceCents()).append(',')
                    .append(s.quantity()).append(',').append(s.poId()).append(',').append(s.soId()).append(',')
                    .append(created).append(')');
        }
        return sb.append(IDEMPOTENT).toString();
    }

    /** A SQL string literal: quotes doubled, backslashes and NUL escaped. */
    private static StringBuilder quote(StringBuilder sb, String s) {
        sb.append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\'' -> sb.append("''");
                case '\\' -> sb.append("\\\\");
                case '\0' -> sb.append("\\0");
                default -> sb.append(c);
            }
        }
        return sb.append('\'');
    }

    /** Cents as a DECIMAL literal with two decimals: 1050 -> 10.50 (prices are positive). */
    private static StringBuilder appendPrice(StringBuilder sb, long cents) {
        long frac = cents % 100;
        return sb.append(cents / 100).append(frac < 10 ? ".0" : ".").append(frac);
    }
}
