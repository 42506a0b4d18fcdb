package tradebench.loadclient.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the launcher says happened to the database, read from the load client's stdin: the launcher is the
 * process that started the load client and kills, stops and restarts the database, so it tells the phase
 * through the pipe it already holds, a line per event: {@code db-killed <epoch-ms>} (the moment of its
 * SIGKILL), {@code db-back <epoch-ms>} (the moment the database accepted connections again). One reader
 * thread records them; a phase waits on an event with a deadline. The end of stdin means no further event
 * comes, so a wait ends at once then instead of at its deadline.
 */
final class DbEvents {

    static final String KILLED = "db-killed";
    static final String BACK = "db-back";

    private final Map<String, Long> seen = new HashMap<>();
    private final List<String> malformed = new ArrayList<>();
    private boolean ended;

    private DbEvents() {}

    /** Starts the reader of {@code in}; it runs until the end of {@code in}. */
    static DbEvents listen(InputStream in) {
        DbEvents events = new DbEvents();
        Thread.ofPlatform().daemon().name("db-events").start(() -> events.read(in));
        return events;
    }

    private void read(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) record(line.trim());
        } catch (IOException e) {
            // a broken pipe is the launcher gone: no further event, as at the end of the stream
        }
        synchronized (this) {
            ended = true;
            notifyAll();
        }
    }

    private synchronized void record(String line) {
        if (line.isEmpty()) return;
        String[] words = line.split("\\s+");
        if (words.length == 2 && (words[0].equals(KILLED) || words[0].equals(BACK)) && words[1].matches("\\d{1,18}")) {
            seen.putIfAbsent(words[0], Long.parseLong(words[1]));
            notifyAll();
        } else {
            malformed.add(line);
        }
    }

    /** The epoch ms of {@code event} if the launcher has said it; -1 otherwise (no waiting). */
    synchronized long at(String event) {
        return seen.getOrDefault(event, -1L);
    }

    /** The epoch ms of {@code event}, waiting for it until {@code deadlineMs} (epoch); -1 when it did not come. */
    synchronized long await(String event, long deadlineMs) throws InterruptedException {
        for (long left = deadlineMs - System.currentTimeMillis(); !seen.containsKey(event) && !ended && left > 0;
                left = deadlineMs - System.currentTimeMillis()) {
            wait(left);
        }
        return at(event);
    }

    /** The lines read that are neither {@code db-killed <ms>} nor {@code db-back <ms>}. */
    synchronized List<String> malformed() {
        return List.copyOf(malformed);
    }
}
