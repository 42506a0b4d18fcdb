package tradebench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import tradebench.model.Sale;

class SalesTableTest {
    @Test
    void batchTextHasEveryRowInColumnOrderAndIsIdempotent() {
        String sql = SalesTable.insertText(List.of(new Sale("b1", "s2", 7, 1050, 3, 11, 12),
                new Sale("b3", "s4", 42, 20_000, 10, 13, 14), new Sale("b5", "s6", 0, 1001, 1, 15, 16)), 99);
        assertEquals(SalesTable.INSERT + "('b1','s2','7',10.50,3,11,12,99),('b3','s4','42',200.00,10,13,14,99),"
                + "('b5','s6','0',10.01,1,15,16,99)" + SalesTable.IDEMPOTENT, sql);
    }

    @Test
    void batchTextQuotesNamesSafely() {
        String sql = SalesTable.insertText(List.of(new Sale("o'neil", "back\\slash\0", 7, 5, 3, 1, 2)), 99);
        assertEquals(SalesTable.INSERT + "('o''neil','back\\\\slash\\0','7',0.05,3,1,2,99)" + SalesTable.IDEMPOTENT, sql);
    }
}
