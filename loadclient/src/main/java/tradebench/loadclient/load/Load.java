package tradebench.loadclient.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.PrintStream;

/** {@code loadclient load}: the run, its summary and its JSON; the exit code. */
public final class Load {

    /** Exit code when the answers other than 202/503 plus I/O errors exceed {@code --max-error-rate}. */
    public static final int TOO_MANY_ERRORS = 3;

    private Load() {}

    /** Runs the load {@code options} describe; 0, or {@link #TOO_MANY_ERRORS}. */
    public static int run(LoadOptions options, PrintStream out) throws Exception {
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
}
