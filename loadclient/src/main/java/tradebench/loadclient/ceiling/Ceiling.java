package tradebench.loadclient.ceiling;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.PrintStream;

/** {@code loadclient insert-ceiling}: the measurement, its summary and its JSON. */
public final class Ceiling {

    private Ceiling() {}

    /** Measures the ceiling {@code options} describe; 0 once it is measured (a failure throws). */
    public static int run(CeilingOptions options, PrintStream out) throws Exception {
        InsertCeiling ceiling = new InsertCeiling(options, out);
        InsertCeiling.Result result = ceiling.run();
        out.print(ceiling.summary(result));
        if (options.jsonFile() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(options.jsonFile()), result.json());
            out.println("json written to " + options.jsonFile());
        }
        return 0;
    }
}
