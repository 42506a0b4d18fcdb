package tradebench.loadclient;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;
import tradebench.loadclient.ceiling.CeilingOptions;
import tradebench.loadclient.ceiling.Ceiling;
import tradebench.loadclient.load.Load;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.reliability.RelOptions;
import tradebench.loadclient.reliability.Reliability;
import tradebench.loadclient.verify.VerifyOptions;
import tradebench.loadclient.verify.Verify;

/**
 * {@code loadclient load ...}, {@code loadclient insert-ceiling ...}, {@code loadclient verify ...} and
 * {@code loadclient reliability PHASE ...}. Exit codes: 0 ok, 1 failures, 2 usage, 3 load: too many errors.
 * Main only parses the command line and hands it to the part's entry point ({@link Load}, {@link Ceiling},
 * {@link Verify}, {@link Reliability}); the parts share only this package, {@code http} and {@code audit}.
 */
public final class Main {

    /** Exit code of {@code load} when the answers other than 202/503 plus I/O errors exceed {@code --max-error-rate}. */
    public static final int TOO_MANY_ERRORS = Load.TOO_MANY_ERRORS;

    /** Exit code of a mistake on the command line: the run never starts. */
    public static final int USAGE = 2;

    /** The command itself: its subcommands are the option classes, {@code help} prints any of them. */
    @Command(name = "loadclient",
            description = "the load client and the verifier of tradebench (loadclient/README.md)",
            subcommands = {LoadOptions.class, CeilingOptions.class, VerifyOptions.class, RelOptions.class, HelpCommand.class},
            footer = {"", "Exit codes: 0 success, 1 failure (verify found a broken rule, load or insert-ceiling could not run),"
                    + " 2 a mistake on the command line, 3 load: too many requests failed (--max-error-rate)."})
    static final class Commands {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print the subcommands and exit")
        boolean help;
    }

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /** {@link #run(String[], InputStream, PrintStream, PrintStream)} with nothing on stdin. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, InputStream.nullInputStream(), out, err);
    }

    /** Runs the command {@code args} name; {@code in} is the reliability phases' stdin (what the launcher says). */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        CommandLine cl = CommandOptions.commandLine(new Commands());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        if (args.length == 0) {
            cl.usage(out);
            return USAGE;
        }
        Object command;
        try {
            ParseResult parsed = cl.parseArgs(args);
            if (CommandLine.printHelpIfRequested(parsed)) return 0;
            if (!parsed.hasSubcommand()) throw new ParameterException(cl, "a subcommand is needed");
            command = parsed.subcommand().commandSpec().userObject();
            ((CommandOptions) command).check();
        } catch (ParameterException e) {
            err.println("loadclient: " + e.getMessage());
            UnmatchedArgumentException.printSuggestions(e, err);
            e.getCommandLine().usage(err);
            return USAGE;
        }
        try {
            return switch (command) {
                case LoadOptions o -> Load.run(o, out);
                case CeilingOptions o -> Ceiling.run(o, out);
                case VerifyOptions o -> Verify.run(o, out);
                case RelOptions o -> Reliability.run(o, in, out);
                default -> throw new IllegalStateException("no runner for " + command.getClass());
            };
        } catch (Exception e) {
            err.println("loadclient: " + e);
            return 1;
        }
    }
}
