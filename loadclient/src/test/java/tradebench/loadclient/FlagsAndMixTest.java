package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tradebench.loadclient.OrderMix.Order;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.verify.VerifyOptions;

class FlagsAndMixTest {

    @Test
    void loadDefaultsAreThoseOfSpecSection6() {
        LoadOptions o = LoadOptions.parse(new String[0]);
        assertEquals("http://127.0.0.1:3000", o.url().toString());
        assertEquals(80, o.concurrency());
        assertEquals(60, o.waitMs());
        assertEquals(60.0, o.durationS());
        assertEquals(10.0, o.warmupS());
        assertEquals(100, o.products());
        assertEquals(1000, o.users());
        assertEquals(42, o.seed());
        assertNull(o.dbUrl());
        assertNull(o.jsonFile());
        assertFalse(o.fixedRate(), "the closed loop is the default");
    }

    @Test
    void everyLoadFlagIsRead() {
        LoadOptions o = LoadOptions.parse(new String[] {"--url", "http://h:9/", "--concurrency", "7", "--wait=0",
                "--duration", "1.5", "--warmup", "0", "--products", "3", "--users", "2", "--seed", "-5",
                "--db-url", "jdbc:mysql://x/y", "--json", "r.json", "--rate", "250.5", "--progress", "1",
                "--timeout", "99", "--threads", "platform", "--client", "jdk"});
        assertEquals("http://h:9", o.url().toString(), "a trailing slash would double in /buy");
        assertEquals(7, o.concurrency());
        assertEquals(0, o.waitMs());
        assertEquals(1.5, o.durationS());
        assertEquals(0.0, o.warmupS());
        assertEquals(3, o.products());
        assertEquals(2, o.users());
        assertEquals(-5, o.seed());
        assertEquals("jdbc:mysql://x/y", o.dbUrl());
        assertEquals("r.json", o.jsonFile());
        assertEquals(250.5, o.rate());
        assertTrue(o.fixedRate());
        assertEquals(99, o.timeoutMs());
        assertFalse(o.virtualThreads());
        assertTrue(o.jdkClient());
    }

    @Test
    void theHarnessFlagsAreRead() {
        LoadOptions d = LoadOptions.parse(new String[0]);
        assertFalse(d.warmupAuto());
        assertEquals(5.0, d.steadyWindowS());
        assertEquals(0.05, d.steadyTolerance());
        assertEquals(120.0, d.warmupMaxS());
        assertEquals(0.01, d.maxErrorRate());
        assertNull(d.histogramFile());
        LoadOptions o = LoadOptions.parse(new String[] {"--warmup", "auto", "--steady-window", "2.5", "--steady-tolerance",
                "0.1", "--warmup-max", "60", "--max-error-rate", "0.2", "--histogram", "h.hgrm",
                "--url", "http://a:1/, http://b:2"});
        assertTrue(o.warmupAuto());
        assertEquals(0.0, o.warmupS());
        assertEquals(2.5, o.steadyWindowS());
        assertEquals(0.1, o.steadyTolerance());
        assertEquals(60.0, o.warmupMaxS());
        assertEquals(0.2, o.maxErrorRate());
        assertEquals("h.hgrm", o.histogramFile());
        assertEquals("http://a:1/, http://b:2", o.urlText());
        assertEquals("http://a:1", o.url(0).toString());
        assertEquals("http://b:2", o.url(1).toString());
        assertEquals("http://a:1", o.url(2).toString(), "round-robin");
    }

    @Test
    void mistakesOnTheCommandLineAreRefused() {
        for (String[] bad : new String[][] {
                {"--concurency", "5"}, {"--concurrency"}, {"--concurrency", "0"}, {"--concurrency", "x"},
                {"--duration", "0"}, {"--warmup", "-1"}, {"--rate", "0"}, {"--threads", "green"}, {"--client", "curl"},
                {"--wait", "5", "--wait", "6"}, {"extra"}, {"--url", "nohost"}, {"--warmup", "automatic"},
                {"--url", "http://a:1,,http://b:2"}, {"--url", "http://a:1,nohost"}, {"--steady-window", "0"},
                {"--steady-tolerance", "-0.1"}, {"--warmup-max", "-1"}, {"--max-error-rate", "-0.5"},
                {"--max-error-rate", "x"}}) {
            assertThrows(Flags.UsageException.class, () -> LoadOptions.parse(bad), String.join(" ", bad));
        }
        assertThrows(Flags.UsageException.class, () -> VerifyOptions.parse(new String[] {"--url", "http://h:1"}),
                "verify needs --db-url");
        assertThrows(Flags.UsageException.class, () -> VerifyOptions.parse(new String[] {"--db-url", "j", "--products", "3"}),
                "verify keeps 3 products for itself");
        assertThrows(Flags.UsageException.class,
                () -> VerifyOptions.parse(new String[] {"--db-url", "j", "--sales-table", "SALES; DROP"}));
    }

    @Test
    void usageErrorsExitWithTwoAndHelpWithZero() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true);
        assertEquals(2, Main.run(new String[] {"load", "--bogus", "1"}, out, out));
        assertEquals(2, Main.run(new String[] {"dance"}, out, out));
        assertEquals(0, Main.run(new String[] {"load", "--help"}, out, out));
        assertTrue(buf.toString().contains("--concurrency"));
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
