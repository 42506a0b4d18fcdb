package tradebench.loadclient;

import java.net.URI;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every subcommand's flags share: {@code --help}, and the checks picocli's types
 * cannot express (ranges, seconds, URLs). Unknown flags, missing values, flags given twice
 * and malformed numbers are refused by picocli itself; every refusal is a
 * {@link ParameterException}: a message, the usage, exit code 2. A benchmark run with a
 * mistyped flag would measure something else than intended, so it never starts.
 */
public abstract class CommandOptions {

    @Spec
    protected CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print the flags and exit")
    private boolean help;

    /** Checks the values picocli has set and derives what the subcommand reads; a mistake throws. */
    protected abstract void check();

    /**
     * Parses {@code args} into {@code options} and checks them, as the subcommand does
     * (without {@code --help}): the tests and {@link Main} share it.
     */
    protected static <T extends CommandOptions> T parse(T options, String[] args) {
        commandLine(options).parseArgs(args);
        options.check();
        return options;
    }

    /**
     * The command line of {@code command} (and its subcommands) as the load client reads it:
     * an argument is what it says, never {@code @FILE} read as more arguments (a value may start with @).
     */
    public static CommandLine commandLine(Object command) {
        return new CommandLine(command).setExpandAtFiles(false);
    }

    protected ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    protected int range(String flag, int value, int min, int max) {
        if (value < min || value > max) throw usage(flag + " must be in " + min + ".." + max + ": " + value);
        return value;
    }

    /** A non-negative, finite number of seconds (decimals allowed, so tests can run short). */
    protected double seconds(String flag, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) throw usage(flag + " must be >= 0 seconds: " + value);
        return value;
    }

    /** {@link #seconds} of a flag that also takes a word (e.g. {@code --warmup auto}). */
    protected double seconds(String flag, String text) {
        try {
            return seconds(flag, Double.parseDouble(text));
        } catch (NumberFormatException e) {
            throw usage(flag + " must be a number of seconds: " + text);
        }
    }

    /** A number of seconds that must be more than zero. */
    protected double positiveSeconds(String flag, double value) {
        if (seconds(flag, value) <= 0) throw usage(flag + " must be > 0");
        return value;
    }

    protected double positive(String flag, double value) {
        if (!(value > 0) || Double.isInfinite(value)) throw usage(flag + " must be > 0: " + value);
        return value;
    }

    protected String nonEmpty(String flag, String value) {
        if (value == null || value.isEmpty()) throw usage(flag + " is required");
        return value;
    }

    /** A table name we may put into SQL as it is. */
    protected String tableName(String flag, String value) {
        if (!value.matches("[A-Za-z0-9_]{1,64}")) throw usage(flag + ": bad table name " + value);
        return value;
    }

    /** A base URL: the trailing slash dropped (it would double in {@code /buy}), a host required. */
    protected URI baseUrl(String flag, String text) {
        String s = text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
        URI url;
        try {
            url = URI.create(s);
        } catch (IllegalArgumentException e) {
            throw usage(flag + " is not a URL: " + text);
        }
        if (url.getHost() == null) throw usage(flag + " needs a host: " + url);
        return url;
    }
}
