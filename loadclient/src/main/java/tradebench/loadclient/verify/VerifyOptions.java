package tradebench.loadclient.verify;

import java.util.List;
import tradebench.loadclient.Flags.Spec;

public record VerifyOptions() {
    public static final List<Spec> FLAGS = List.of();
    public static VerifyOptions parse(String[] args) { return new VerifyOptions(); }
}
