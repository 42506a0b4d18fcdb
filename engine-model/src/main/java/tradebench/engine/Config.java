package tradebench.engine;

import java.util.Locale;
import java.util.Map;

/**
 * The service's settings, from the environment, with the names of the contract
 * section 5 (and a few variant extras, documented in each variant's README).
 * A bad value stops the service at start with a message naming it.
 */
public record Config(int port, int engines, long delayMs, long timeoutMs, int products, int inboxLimit,
                     PersistMode persist, String dbHost, int dbPort, String dbName, String dbUser,
                     String dbPassword, int dbPool, Map<String, String> env) {

    public enum PersistMode {
        PER_SALE, BATCH;

        static PersistMode parse(String s) {
            return switch (s.toLowerCase(Locale.ROOT)) {
                case "per-sale" -> PER_SALE;
                case "batch" -> BATCH;
                default -> throw new IllegalArgumentException("PERSIST must be per-sale or batch, not '" + s + "'");
            };
        }

        public String wire() {
            return this == PER_SALE ? "per-sale" : "batch";
        }
    }

    public static Config fromEnv() {
        return from(System.getenv());
    }

    public static Config from(Map<String, String> env) {
        Config c = new Config(
                intIn(env, "PORT", 3000, 0, 65535), // 0: any free port (tests)
                intIn(env, "ENGINES", 4, 1, 1024),
                intIn(env, "DELAY_MS", 3, 0, 60_000),
                intIn(env, "TIMEOUT_MS", 60_000, 1, Integer.MAX_VALUE),
                intIn(env, "PRODUCTS", 100, 1, 1_000_000),
                intIn(env, "INBOX_LIMIT", 10_000, 1, 100_000_000),
                PersistMode.parse(env.getOrDefault("PERSIST", "per-sale")),
                env.getOrDefault("DB_HOST", "127.0.0.1"),
                intIn(env, "DB_PORT", 3306, 1, 65535),
                env.getOrDefault("DB_NAME", "TRADER"),
                env.getOrDefault("DB_USER", "trader"),
                env.getOrDefault("DB_PASSWORD", "trader"),
                0, Map.copyOf(env));
        int pool = intIn(env, "DB_POOL", c.engines() + 4, 1, 10_000);
        return new Config(c.port, c.engines, c.delayMs, c.timeoutMs, c.products, c.inboxLimit, c.persist,
                c.dbHost, c.dbPort, c.dbName, c.dbUser, c.dbPassword, pool, c.env);
    }

    /** A variant's own setting (e.g. THREADS), with a default. */
    public String extra(String name, String dflt) {
        String v = env.get(name);
        return v == null || v.isBlank() ? dflt : v.trim();
    }

    public int extraInt(String name, int dflt, int min, int max) {
        return intIn(env, name, dflt, min, max);
    }

    /** The engine that owns a product (contract section 1: product i belongs to engine i mod ENGINES). */
    public int engineOf(int productId) {
        return productId % engines;
    }

    public String jdbcUrl() {
        return "jdbc:mysql://" + dbHost + ":" + dbPort + "/" + dbName;
    }

    public String describe() {
        return "port=" + port + " engines=" + engines + " delayMs=" + delayMs + " timeoutMs=" + timeoutMs
                + " products=" + products + " inboxLimit=" + inboxLimit + " persist=" + persist.wire()
                + " db=" + dbHost + ":" + dbPort + "/" + dbName + " dbPool=" + dbPool;
    }

    private static int intIn(Map<String, String> env, String name, int dflt, int min, int max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return dflt;
        try {
            long n = Long.parseLong(v.trim());
            if (n < min || n > max) throw new NumberFormatException();
            return (int) n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer in " + min + ".." + max + ", not '" + v + "'");
        }
    }
}
