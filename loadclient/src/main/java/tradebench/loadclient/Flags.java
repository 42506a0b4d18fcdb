package tradebench.loadclient;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line flags of one subcommand: {@code --name value} or {@code --name=value}.
 * Unknown flags, missing values and malformed numbers are errors, not silently ignored:
 * a benchmark run with a mistyped flag would measure something else than intended.
 */
public final class Flags {

    /** One accepted flag: its name, default (null = none) and what it means (printed by --help). */
    public record Spec(String name, String defaultValue, String help) {}

    private final String command;
    private final List<Spec> specs;
    private final Map<String, String> values = new LinkedHashMap<>();

    private Flags(String command, List<Spec> specs) {
        this.command = command;
        this.specs = specs;
    }

    public static Flags parse(String command, List<Spec> specs, String[] args) {
        Flags f = new Flags(command, specs);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || a.length() == 2) throw new UsageException("unexpected argument: " + a);
            String name;
            String value;
            int eq = a.indexOf('=');
            if (eq > 0) {
                name = a.substring(2, eq);
                value = a.substring(eq + 1);
            } else {
                name = a.substring(2);
                if (i + 1 >= args.length) throw new UsageException("--" + name + " needs a value");
                value = args[++i];
            }
            if (specs.stream().noneMatch(s -> s.name().equals(name))) {
                throw new UsageException("unknown flag --" + name + " for '" + command + "'");
            }
            if (f.values.put(name, value) != null) throw new UsageException("--" + name + " given twice");
        }
        return f;
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String string(String name) {
        String v = values.get(name);
        if (v != null) return v;
        return spec(name).defaultValue();
    }

    public String required(String name) {
        String v = string(name);
        if (v == null || v.isEmpty()) throw new UsageException("--" + name + " is required");
        return v;
    }

    public int integer(String name, int min, int max) {
        String v = string(name);
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) throw new UsageException("--" + name + " must be in " + min + ".." + max + ": " + v);
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be an integer: " + v);
        }
    }

    public long longValue(String name) {
        String v = string(name);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be an integer: " + v);
        }
    }

    /** A non-negative number of seconds (decimals allowed, so tests can run short). */
    public double seconds(String name) {
        String v = string(name);
        try {
            double d = Double.parseDouble(v);
            if (!(d >= 0) || Double.isInfinite(d)) throw new UsageException("--" + name + " must be >= 0 seconds: " + v);
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number of seconds: " + v);
        }
    }

    public double positiveNumber(String name) {
        String v = string(name);
        try {
            double d = Double.parseDouble(v);
            if (!(d > 0) || Double.isInfinite(d)) throw new UsageException("--" + name + " must be > 0: " + v);
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number: " + v);
        }
    }

    private Spec spec(String name) {
        return specs.stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no such flag spec: " + name));
    }

    public static String usage(String command, String summary, List<Spec> specs) {
        StringBuilder sb = new StringBuilder("usage: loadclient ").append(command).append(" [flags]\n  ").append(summary).append("\n");
        for (Spec s : specs) {
            sb.append(String.format("  --%-13s %s%s%n", s.name(), s.help(),
                    s.defaultValue() == null ? "" : " (default " + s.defaultValue() + ")"));
        }
        return sb.toString();
    }

    /** A mistake on the command line: printed with the usage, exit code 2. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }
}
