package tradebench.model;

import java.math.BigDecimal;

/** Prices are integer cents inside the market: comparisons are exact. */
public final class Prices {
    private Prices() {
    }

    /** Cents of a decimal with at most 2 decimals; throws on more decimals. */
    public static long toCents(BigDecimal price) {
        return price.movePointRight(2).longValueExact();
    }

    /** As a JSON number: 10.5, 12, 0.01. */
    public static String format(long cents) {
        long whole = cents / 100, frac = cents % 100;
        if (frac == 0) return Long.toString(whole);
        if (frac % 10 == 0) return whole + "." + (frac / 10);
        return whole + (frac < 10 ? ".0" : ".") + frac;
    }

    public static BigDecimal toDecimal(long cents) {
        return BigDecimal.valueOf(cents, 2);
    }

    /** The number {@link #format} writes, for a JSON generator (which must write it in plain notation): 10.5, 12, 0.01. */
    public static BigDecimal toJsonNumber(long cents) {
        return BigDecimal.valueOf(cents, 2).stripTrailingZeros();
    }
}
