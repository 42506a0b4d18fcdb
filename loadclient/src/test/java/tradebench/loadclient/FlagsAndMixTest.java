package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;
import tradebench.loadclient.OrderMix.Order;
import tradebench.loadclient.ceiling.CeilingOptions;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.verify.VerifyOptions;

class FlagsAndMixTest {

    @Test
    void loadDefaultsAreThoseOfSpecSection6() {
        LoadOptions o = LoadOptions.parse(new String[0]);
        assertEquals("http://127.0.0.1:3000", o.url().toString());
        assertEquals(80, o.concurrency());
        assertEquals(60, o.waitMs());
        assertEquals(60.0, o.window().durationS());
        assertEquals(10.0, o.window().warmupS());
        assertEquals(100, o.products());
        assertEquals(1000, o.users());
        assertEquals(42, o.seed());
        assertNull(o.dbUrl());
        assertNull(o.jsonFile());
        assertFalse(o.fixedRate(), "the closed loop is the default");
    }

    @Test
    void everyLoadFlagIsRead() {
        LoadOptions o = LoadOptions.parse("--url", "http://h:9/", "--concurrency", "7", "--wait=0",
                "--duration", "1.5", "--warmup", "0", "--products", "3", "--users", "2", "--seed", "-5",
                "--db-url", "jdbc:mysql://x/y", "--json", "r.json", "--rate", "250.5", "--progress", "1",
                "--timeout", "99", "--threads", "platform", "--client", "blocking");
        assertEquals("http://h:9", o.url().toString(), "a trailing slash would double in /buy");
        assertEquals(7, o.concurrency());
        assertEquals(0, o.waitMs());
        assertEquals(1.5, o.window().durationS());
        assertEquals(0.0, o.window().warmupS());
        assertEquals(3, o.products());
        assertEquals(2, o.users());
        assertEquals(-5, o.seed());
        assertEquals("jdbc:mysql://x/y", o.dbUrl());
        assertEquals("r.json", o.jsonFile());
        assertEquals(250.5, o.rate());
        assertTrue(o.fixedRate());
        assertEquals(1.0, o.window().progressS());
        assertEquals(99, o.timeoutMs());
        assertFalse(o.virtualThreads());
        assertFalse(o.nioClient());
        LoadOptions d = LoadOptions.parse();
        assertTrue(d.nioClient(), "the event loops are the default client");
        assertTrue(d.virtualThreads());
        assertEquals(0.0, d.rate());
        assertEquals(5.0, d.window().progressS());
        assertEquals(30_000, d.timeoutMs());
    }

    @Test
    void theHarnessFlagsAreRead() {
        LoadOptions d = LoadOptions.parse(new String[0]);
        assertFalse(d.window().warmupAuto());
        assertEquals(5.0, d.window().steadyWindowS());
        assertEquals(0.05, d.window().steadyTolerance());
        assertEquals(120.0, d.window().warmupMaxS());
        assertEquals(0.01, d.maxErrorRate());
        assertNull(d.histogramFile());
        LoadOptions o = LoadOptions.parse(new String[] {"--warmup", "auto", "--steady-window", "2.5", "--steady-tolerance",
                "0.1", "--warmup-max", "60", "--max-error-rate", "0.2", "--histogram", "h.hgrm",
                "--url", "http://a:1/, http://b:2"});
        assertTrue(o.window().warmupAuto());
        assertEquals(0.0, o.window().warmupS());
        assertEquals(2.5, o.window().steadyWindowS());
        assertEquals(0.1, o.window().steadyTolerance());
        assertEquals(60.0, o.window().warmupMaxS());
        assertEquals(0.2, o.maxErrorRate());
        assertEquals("h.hgrm", o.histogramFile());
        assertEquals("http://a:1/, http://b:2", o.urlText());
        assertEquals("http://a:1", o.url(0).toString());
        assertEquals("http://b:2", o.url(1).toString());
        assertEquals("http://a:1", o.url(2).toString(), "round-robin");
    }

    @Test
    void integersAreDecimalAndNegativeNumbersAreValues() {
        assertEquals(10, LoadOptions.parse("--wait", "010").waitMs(), "010 is ten, not an octal eight");
        assertThrows(ParameterException.class, () -> LoadOptions.parse("--concurrency", "0x10"), "no hexadecimal");
        assertEquals(-7, LoadOptions.parse("--seed=-7").seed());
        assertEquals(-7, LoadOptions.parse("--seed", "-7").seed(), "a negative number after a flag is its value");
    }

    @Test
    void anArgumentStartingWithAtIsAValueNotAFileOfArguments() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("args", ".txt");
        try {
            java.nio.file.Files.writeString(file, "--concurrency 7\n");
            LoadOptions o = LoadOptions.parse("--json", "@" + file);
            assertEquals("@" + file, o.jsonFile());
            assertEquals(80, o.concurrency());
            assertEquals(2, main("load", "@" + file).code(), "an argument, not a flag");
        } finally {
            java.nio.file.Files.delete(file);
        }
    }

    @Test
    void mistakesOnTheCommandLineAreRefused() {
        for (String[] bad : new String[][] {
                {"--concurency", "5"}, {"--concurrency"}, {"--concurrency", "0"}, {"--concurrency", "x"},
                {"--duration", "0"}, {"--warmup", "-1"}, {"--rate", "0"}, {"--threads", "green"}, {"--client", "curl"},
                {"--client", "jdk"}, {"--progress", "0"}, {"--timeout", "0"}, {"--users", "0"}, {"--products", "0"},
                {"--wait", "-1"}, {"--seed", "1.5"},
                {"--wait", "5", "--wait", "6"}, {"extra"}, {"--url", "nohost"}, {"--url", ""}, {"--warmup", "automatic"},
                {"--url", "http://a:1,,http://b:2"}, {"--url", "http://a:1,nohost"}, {"--steady-window", "0"},
                {"--steady-tolerance", "-0.1"}, {"--warmup-max", "-1"}, {"--max-error-rate", "-0.5"},
                {"--max-error-rate", "x"}, {"--duration", "Infinity"}, {"--duration", "NaN"}}) {
            assertThrows(ParameterException.class, () -> LoadOptions.parse(bad), String.join(" ", bad));
        }
        assertThrows(ParameterException.class, () -> VerifyOptions.parse("--url", "http://h:1"), "verify needs --db-url");
        assertThrows(ParameterException.class, () -> VerifyOptions.parse("--db-url", "j", "--products", "3"),
                "verify keeps 3 products for itself");
        assertThrows(ParameterException.class, () -> VerifyOptions.parse("--db-url", "j", "--sales-table", "SALES; DROP"));
        assertThrows(ParameterException.class, () -> VerifyOptions.parse("--db-url", "j", "--url", "nohost"));
        assertThrows(ParameterException.class, () -> CeilingOptions.parse("--db-url", "j", "--warmup", "soon"));
        assertThrows(ParameterException.class, () -> CeilingOptions.parse("--db-url", "j", "--connections", "1001"));
    }

    @Test
    void verifyAndInsertCeilingFlagsAreRead() {
        VerifyOptions v = VerifyOptions.parse("--url", "http://h:2/", "--db-url", "jdbc:x", "--products", "10", "--orders", "5",
                "--connections", "3", "--quiet-timeout", "1.5", "--poll-timeout", "2", "--sales-table", "S_1", "--seed", "9");
        assertEquals("http://h:2", v.url().toString());
        assertEquals("jdbc:x", v.dbUrl());
        assertEquals(10, v.products());
        assertEquals(5, v.orders());
        assertEquals(3, v.connections());
        assertEquals(1.5, v.quietTimeoutS());
        assertEquals(2.0, v.pollTimeoutS());
        assertEquals("S_1", v.salesTable());
        assertEquals(9, v.seed());
        VerifyOptions d = VerifyOptions.parse("--db-url", "jdbc:x");
        assertEquals("http://127.0.0.1:3000", d.url().toString());
        assertEquals(100, d.products());
        assertEquals(3000, d.orders());
        assertEquals(32, d.connections());
        assertEquals(20.0, d.quietTimeoutS());
        assertEquals(10.0, d.pollTimeoutS());
        assertEquals("SALES", d.salesTable());

        CeilingOptions c = CeilingOptions.parse("--db-url", "jdbc:x");
        assertEquals(4, c.connections());
        assertEquals(10.0, c.window().durationS());
        assertFalse(c.window().warmupAuto());
        assertEquals(2.0, c.window().warmupS());
        assertEquals(5.0, c.window().steadyWindowS());
        assertEquals(0.05, c.window().steadyTolerance());
        assertEquals(60.0, c.window().warmupMaxS());
        assertEquals(1, c.batchRows());
        assertNull(c.jsonFile());
        assertEquals(5.0, c.window().progressS());
        CeilingOptions a = CeilingOptions.parse("--db-url", "jdbc:x", "--warmup", "auto", "--batch-rows", "1000",
                "--connections", "64", "--json", "c.json");
        assertTrue(a.window().warmupAuto());
        assertEquals(0.0, a.window().warmupS());
        assertEquals(1000, a.batchRows());
        assertEquals(64, a.connections());
        assertEquals("c.json", a.jsonFile());
    }

    private record Outcome(int code, String out, String err) {}

    private static Outcome main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void usageErrorsExitWithTwoAndSayWhatWasWrong() {
        Outcome unknown = main("load", "--bogus", "1");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("loadclient: Unknown option") && unknown.err().contains("'--bogus'"), unknown.err());
        assertTrue(unknown.err().contains("Usage: loadclient load"), "the subcommand's usage follows: " + unknown.err());
        assertTrue(unknown.out().isEmpty(), "nothing ran: " + unknown.out());

        Outcome typo = main("load", "--concurency", "5");
        assertEquals(2, typo.code());
        assertTrue(typo.err().contains("--concurrency"), "the flag meant is suggested: " + typo.err());

        Outcome range = main("load", "--concurrency", "0");
        assertEquals(2, range.code());
        assertTrue(range.err().contains("loadclient: --concurrency must be in 1..100000: 0"), range.err());

        Outcome twice = main("load", "--wait", "5", "--wait", "6");
        assertEquals(2, twice.code());
        assertTrue(twice.err().contains("--wait"), twice.err());

        Outcome missing = main("verify", "--url", "http://127.0.0.1:1");
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("Missing required option: '--db-url=JDBC-URL'"), missing.err());

        Outcome jdk = main("load", "--client", "jdk");
        assertEquals(2, jdk.code());
        assertTrue(jdk.err().contains("--client must be nio or blocking: jdk"), jdk.err());

        assertEquals(2, main("dance").code());
        assertEquals(2, main().code(), "no subcommand: the usage, and a mistake");
        assertTrue(main().out().contains("insert-ceiling"));
    }

    @Test
    void reliabilityPhasesAndTheirFlagsAreChecked() {
        Outcome unknown = main("reliability", "dance", "--db-url", "j");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("unknown reliability phase: dance"), unknown.err());
        Outcome none = main("reliability");
        assertEquals(2, none.code());
        assertTrue(none.err().contains("PHASE"), none.err());
        Outcome noOrdersOut = main("reliability", "load", "--url", "http://127.0.0.1:1");
        assertEquals(2, noOrdersOut.code());
        assertTrue(noOrdersOut.err().contains("reliability load: --orders-out is required"), noOrdersOut.err());
        Outcome noDb = main("reliability", "audit", "--orders", "a.tsv");
        assertEquals(2, noDb.code());
        assertTrue(noDb.err().contains("reliability audit: --db-url is required"), noDb.err());
        Outcome noOrdersOutCrash = main("reliability", "dbcrash", "--db-url", "j");
        assertEquals(2, noOrdersOutCrash.code());
        assertTrue(noOrdersOutCrash.err().contains("reliability dbcrash: --orders-out is required"), noOrdersOutCrash.err());
        Outcome fileFlag = main("reliability", "dbcrash", "--db-url", "j", "--orders-out", "o.tsv", "--db-killed-file", "k");
        assertEquals(2, fileFlag.code(), "the launcher says db-killed on stdin, a file flag is no option");
        assertTrue(fileFlag.err().contains("--db-killed-file"), fileFlag.err());
        Outcome timeout = main("reliability", "dbcrash", "--db-url", "j", "--orders-out", "o.tsv", "--request-timeout", "50");
        assertEquals(2, timeout.code());
        assertTrue(timeout.err().contains("--request-timeout"), timeout.err());
        Outcome victim = main("reliability", "crash", "--db-url", "j", "--orders-out", "o.tsv", "--engines", "2", "--engine", "2");
        assertEquals(2, victim.code());
        assertTrue(victim.err().contains("--engine must be in 0..1: 2"), victim.err());
        Outcome prefix = main("reliability", "load", "--orders-out", "o.tsv", "--prefix", "a b");
        assertEquals(2, prefix.code());
        assertTrue(prefix.err().contains("--prefix must be 1..20"), prefix.err());
        Outcome protocol = main("reliability", "bad-input", "--db-url", "j", "--protocol", "maybe");
        assertEquals(2, protocol.code());
        assertTrue(protocol.err().contains("--protocol must be on or off: maybe"), protocol.err());
    }

    @Test
    void helpListsEveryFlagAndExitsZero() {
        Outcome load = main("load", "--help");
        assertEquals(0, load.code());
        // the flags the harness probes for (harness/tradebench_harness/run/loadclient.py supports())
        for (String flag : new String[] {"--url", "--concurrency", "--wait", "--rate", "--duration", "--warmup",
                "--steady-window", "--steady-tolerance", "--warmup-max", "--products", "--users", "--seed", "--db-url",
                "--json", "--histogram", "--max-error-rate", "--progress", "--timeout", "--client", "--threads"}) {
            assertTrue(load.out().contains(flag + "="), flag + " in " + load.out());
        }
        assertTrue(load.out().contains("Default: 80"), "defaults are shown: " + load.out());
        assertFalse(load.out().contains("jdk"), load.out());
        assertFalse(load.out().contains("--batch-rows"), "only load's flags: " + load.out());

        Outcome anywhere = main("load", "--concurrency", "5", "--help");
        assertEquals(0, anywhere.code());
        assertTrue(anywhere.out().contains("--steady-window"), anywhere.out());

        Outcome ceiling = main("insert-ceiling", "--help");
        assertEquals(0, ceiling.code(), "--help needs no --db-url");
        assertTrue(ceiling.out().contains("--batch-rows="), ceiling.out());
        Outcome reliability = main("reliability", "--help");
        assertEquals(0, reliability.code());
        assertTrue(reliability.out().contains("--crash-at=") && reliability.out().contains("--expect-accepted="), reliability.out());
        Outcome verify = main("verify", "--help");
        assertEquals(0, verify.code());
        assertTrue(verify.out().contains("--poll-timeout="), verify.out());

        // `loadclient help` lists the subcommands (harness: loadclient.has_subcommand)
        Outcome help = main("help");
        assertEquals(0, help.code());
        for (String sub : new String[] {"load", "insert-ceiling", "verify", "reliability"}) {
            assertTrue(help.out().contains(sub), sub + " in " + help.out());
        }
        assertEquals(0, main("--help").code());
        assertTrue(main("help", "verify").out().contains("--poll-timeout="));
    }

    @Test
    void theOrderMixIsThatOfSpecSection6() {
        int products = 20;
        int users = 50;
        OrderMix mix = new OrderMix(products, users);
        SplittableRandom rnd = new SplittableRandom(1);
        int n = 200_000;
        int buys = 0;
        int[] perProduct = new int[products];
        int[] perQuantity = new int[11];
        long minPrice = Long.MAX_VALUE;
        long maxPrice = Long.MIN_VALUE;
        boolean[] buyers = new boolean[users];
        boolean[] sellers = new boolean[users];
        for (int i = 0; i < n; i++) {
            Order o = mix.next(rnd);
            perProduct[o.productId()]++;
            perQuantity[o.quantity()]++;
            int k = Integer.parseInt(o.userId().substring(1));
            if (o.buy()) {
                buys++;
                assertEquals(-1, o.priceCents(), "buys carry no price");
                assertTrue(o.userId().startsWith("b"));
                buyers[k] = true;
            } else {
                assertTrue(o.priceCents() >= 1_000 && o.priceCents() <= 20_000, "sell price in 10.00..200.00");
                assertTrue(o.userId().startsWith("s"));
                sellers[k] = true;
                minPrice = Math.min(minPrice, o.priceCents());
                maxPrice = Math.max(maxPrice, o.priceCents());
            }
        }
        assertEquals(0.5, buys / (double) n, 0.01, "half buys, half sells");
        for (int p = 0; p < products; p++) assertEquals(n / (double) products, perProduct[p], n / products * 0.1, "product " + p);
        assertEquals(0, perQuantity[0]);
        for (int q = 1; q <= 10; q++) assertEquals(n / 10.0, perQuantity[q], n / 10 * 0.1, "quantity " + q);
        assertTrue(minPrice <= 1_010 && maxPrice >= 19_990, "prices cover the range: " + minPrice + ".." + maxPrice);
        for (int k = 0; k < users; k++) assertTrue(buyers[k] && sellers[k], "user " + k + " used on both sides");
    }

    @Test
    void ordersBecomeTheRequestsOfSpecSection3() {
        assertEquals("/sell?userId=s7&productId=3&quantity=2&price=17.05", new Order(false, "s7", 3, 2, 1705).target());
        assertEquals("/buy?userId=b1&productId=0&quantity=10", new Order(true, "b1", 0, 10, -1).target());
        assertEquals("10.00", OrderMix.formatCents(1000));
        assertEquals("200.00", OrderMix.formatCents(20000));
        assertEquals("0.01", OrderMix.formatCents(1));
        assertEquals("12.50", OrderMix.formatCents(1250));
    }

    @Test
    void theSameSeedGivesTheSameOrders() {
        OrderMix mix = new OrderMix(100, 1000, "p-");
        SplittableRandom a = new SplittableRandom(42);
        SplittableRandom b = new SplittableRandom(42);
        for (int i = 0; i < 1000; i++) assertEquals(mix.next(a), mix.next(b));
        assertTrue(mix.next(a).userId().startsWith("p-"));
    }
}
