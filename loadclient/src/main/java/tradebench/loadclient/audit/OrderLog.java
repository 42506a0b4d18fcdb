package tradebench.loadclient.audit;

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The accepted orders of a phase, one per line: {@code id buy|sell userId productId quantity price|-}. */
public final class OrderLog {

    private OrderLog() {}

    public static void write(String file, List<SentOrder> orders) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(file), StandardCharsets.UTF_8))) {
            for (SentOrder o : orders) {
                w.println(o.id() + "\t" + o.side() + "\t" + o.userId() + "\t" + o.productId() + "\t" + o.quantity()
                        + "\t" + (o.price() == null ? "-" : o.price().toPlainString()));
            }
        }
    }

    public static List<SentOrder> read(String file) throws IOException {
        List<SentOrder> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            String[] f = line.split("\t");
            if (f.length != 6) throw new IOException(file + ": bad line: " + line);
            out.add(new SentOrder(Long.parseLong(f[0]), f[1].equals("buy"), f[2], f[3], Integer.parseInt(f[4]),
                    f[5].equals("-") ? null : new BigDecimal(f[5]), 0, 0));
        }
        return out;
    }
}
