package tradebench.model.replay;

import java.nio.file.Path;
import tradebench.model.OrderBookMarket;

/** {@code ./tradebench replay java SCENARIO.json}: prints the RESULT JSON (contract section 2). */
public final class ReplayMain {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: replay SCENARIO.json");
            System.exit(2);
        }
        Scenario scenario = Scenario.read(Path.of(args[0]));
        System.out.print(Replay.run(scenario, OrderBookMarket::new).toJson());
        System.out.flush();
    }
}
