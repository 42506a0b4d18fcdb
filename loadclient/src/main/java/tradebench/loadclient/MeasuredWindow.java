package tradebench.loadclient;

import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * The flags of a run that measures a rate (load, insert-ceiling): how long the measured
 * window is, the warm-up before it (fixed, or auto: until two consecutive windows' rates
 * agree), and how often a progress line is printed. {@link #warmupAuto()} is
 * {@code --warmup auto}, {@link #warmupS()} the fixed warm-up ({@code 0} with {@code auto}).
 * A load runs longer than an insert ceiling: each command gives {@code --duration},
 * {@code --warmup} and {@code --warmup-max} their defaults with its {@link Defaults}.
 */
public final class MeasuredWindow {

    @Option(names = "--duration", paramLabel = "S", description = "measured seconds") private double durationS;

    @Option(names = "--warmup", paramLabel = "S|auto",
            description = "seconds run before the measured window but not counted, or auto: until steady") private String warmup;

    @Option(names = "--steady-window", paramLabel = "S", defaultValue = "5", description = "--warmup auto: seconds per warm-up window") private double steadyWindowS;

    @Option(names = "--steady-tolerance", paramLabel = "F", defaultValue = "0.05",
            description = "--warmup auto: steady when two consecutive windows' rates differ by less than this fraction") private double steadyTolerance;

    @Option(names = "--warmup-max", paramLabel = "S",
            description = "--warmup auto: start the measured window after this many seconds even when not steady") private double warmupMaxS;

    @Option(names = "--progress", paramLabel = "S", defaultValue = "5", description = "seconds between progress lines") private double progressS;

    private boolean warmupAuto;
    private double warmupS;

    /** A command's defaults of the window's flags whose defaults differ between commands. */
    public abstract static class Defaults implements IDefaultValueProvider {
        private final Map<String, String> defaults;

        protected Defaults(String durationS, String warmup, String warmupMaxS) {
            defaults = Map.of("--duration", durationS, "--warmup", warmup, "--warmup-max", warmupMaxS);
        }

        @Override
        public String defaultValue(ArgSpec arg) {
            return arg instanceof OptionSpec option ? defaults.get(option.longestName()) : null;
        }
    }

    /** Checks the values picocli has set, refusing a mistake as {@code command}'s usage error. */
    public void check(CommandOptions command) {
        command.positiveSeconds("--duration", durationS);
        command.positiveSeconds("--progress", progressS);
        warmupAuto = warmup.equals("auto");
        warmupS = warmupAuto ? 0 : command.seconds("--warmup", warmup);
        command.positive("--steady-window", steadyWindowS);
        command.positive("--steady-tolerance", steadyTolerance);
        command.seconds("--warmup-max", warmupMaxS);
    }

    public double durationS() {
        return durationS;
    }

    /** Whether {@code --duration} was on the command line (not its default). */
    public boolean durationGiven(CommandOptions command) {
        return !command.spec.findOption("--duration").originalStringValues().isEmpty();
    }

    /** Whether {@code --warmup} was on the command line (not its default). */
    public boolean warmupGiven(CommandOptions command) {
        return !command.spec.findOption("--warmup").originalStringValues().isEmpty();
    }

    /** The window's length when the command derives it from other flags (load's {@code --phases}). */
    public void lastFor(double seconds) {
        durationS = seconds;
    }

    /** The warm-up's length when the command derives it from other flags (load's {@code --window-at}). */
    public void warmUpFor(double seconds) {
        warmupAuto = false;
        warmupS = seconds;
    }

    public boolean warmupAuto() {
        return warmupAuto;
    }

    public double warmupS() {
        return warmupS;
    }

    public double steadyWindowS() {
        return steadyWindowS;
    }

    public double steadyTolerance() {
        return steadyTolerance;
    }

    public double warmupMaxS() {
        return warmupMaxS;
    }

    public double progressS() {
        return progressS;
    }
}
