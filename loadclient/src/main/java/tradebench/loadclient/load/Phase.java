package tradebench.loadclient.load;

import java.util.ArrayList;
import java.util.List;

/** One named part of the measured window: {@code [startMs, endMs)} ms into it. */
record Phase(String name, long startMs, long endMs) {

    double seconds() {
        return (endMs - startMs) / 1000.0;
    }

    boolean contains(long offsetMs) {
        return offsetMs >= startMs && offsetMs < endMs;
    }

    /**
     * {@code NAME:S[,NAME:S...]} in order, each at least a millisecond long, names unique; null with the reason in
     * {@code problem[0]} when the text is not such a list.
     */
    static List<Phase> parse(String text, String[] problem) {
        List<Phase> phases = new ArrayList<>();
        long at = 0;
        for (String part : text.split(",", -1)) {
            int colon = part.lastIndexOf(':');
            String name = colon < 0 ? "" : part.substring(0, colon).trim();
            if (colon < 0 || !name.matches("[A-Za-z0-9_.-]{1,40}")) {
                problem[0] = "each phase is NAME:SECONDS, NAME of 1..40 [A-Za-z0-9_.-]: " + part;
                return null;
            }
            long ms;
            try {
                double s = Double.parseDouble(part.substring(colon + 1).trim());
                ms = Math.round(s * 1000);
                if (!(s > 0) || Double.isInfinite(s) || Math.abs(s * 1000 - ms) > 1e-6) ms = -1;
            } catch (NumberFormatException e) {
                ms = -1;
            }
            if (ms <= 0) {
                problem[0] = "a phase lasts a number of seconds > 0 (at most 3 decimals): " + part;
                return null;
            }
            for (Phase p : phases) {
                if (p.name.equals(name)) {
                    problem[0] = "phase " + name + " given twice";
                    return null;
                }
            }
            phases.add(new Phase(name, at, at + ms));
            at += ms;
        }
        return List.copyOf(phases);
    }
}
