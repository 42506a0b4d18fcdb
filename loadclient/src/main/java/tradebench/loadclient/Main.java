package tradebench.loadclient;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.PrintStream;
import java.util.Arrays;
import tradebench.loadclient.ceiling.CeilingOptions;
import tradebench.loadclient.ceiling.InsertCeiling;
import tradebench.loadclient.load.LoadOptions;
import tradebench.loadclient.load.LoadResult;
import tradebench.loadclient.load.LoadRun;
import tradebench.loadclient.reliability.Reliability;
import tradebench.loadclient.verify.VerifyOptions;
import tradebench.loadclient.verify.Verifier;

/**
 * {@code loadclient load ...}, {@code loadclient insert-ceiling ...}, {@code loadclient verify ...} and
 * {@code loadclient reliability PHASE ...}. Exit codes: 0 ok, 1 failures, 2 usage, 3 load: too many errors.
 */
public final class Main {

    /** Exit code of {@code load} when the answers other than 202/503 plus I/O errors exceed {@code --max-error-rate}. */
    public static final int TOO_MANY_ERRORS = 3;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            out.print(usage());
            return args.length == 0 ? 2 : 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if (Arrays.asList(rest).contains("--help")) {
            out.print(usage());
            return 0;
        }
        try {
            return switch (args[0]) {
                case "load" -> load(LoadOptions.parse(rest), out);
                case "verify" -> new Verifier(VerifyOptions.parse(rest), out).run().isEmpty() ? 0 : 1;
                case "reliability" -> Reliability.run(rest, out);
                case "insert-ceiling" -> insertCeiling(CeilingOptions.parse(rest), out);
                default -> throw new Flags.UsageException("unknown subcommand: " + args[0]);
            };
        } catch (Flags.UsageException e) {
            err.println("loadclient: " + e.getMessage());
            err.print(usage());
            return 2;
        } catch (Exception e) {
            err.println("loadclient: " + e);
            return 1;
        }
    }

    private static int load(LoadOptions options, PrintStream out) throws Exception {
        LoadResult result = new LoadRun(options, out).run();
        out.print(result.summary());
        if (options.jsonFile() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(options.jsonFile()), result.toJson());
            out.println("json written to " + options.jsonFile());
        }
        if (result.histogramFile() != null) out.println("histogram written to " + result.histogramFile());
        if (result.tooManyErrors()) {
            out.printf("loadclient: error rate %.4f > --max-error-rate %s: %d of %d requests were neither 202 nor 503"
                    + " (other 4xx, other 5xx, other statuses, I/O errors)%n",
                    result.errorRate(), options.maxErrorRate(), result.errors(), result.requests());
            return TOO_MANY_ERRORS;
        }
        return 0;
    }

    private static int insertCeiling(CeilingOptions options, PrintStream out) throws Exception {
        InsertCeiling ceiling = new InsertCeiling(options, out);
        InsertCeiling.Result result = ceiling.run();
        out.print(ceiling.summary(result));
        if (options.jsonFile() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(options.jsonFile()), result.json());
            out.println("json written to " + options.jsonFile());
        }
        return 0;
    }

    static String usage() {
        return Flags.usage("load", "contract section 6: closed loop by default, fixed rate with --rate", LoadOptions.FLAGS)
                + Flags.usage("insert-ceiling", "this machine's SALES insert ceiling: N connections looping the variants' INSERT",
                        CeilingOptions.FLAGS)
                + Flags.usage("verify", "checks a running variant against contract section 3 and docs/contract.md", VerifyOptions.FLAGS)
                + Reliability.usage();
    }
}
