package tradebench.engine;

import sun.misc.Signal;

/**
 * SIGTERM (and Ctrl-C) as contract section 3 wants it: stop accepting, finish the
 * cycle, store every pending sale, exit 0. A JVM shutdown hook alone would exit
 * 143, so the signal is handled here: {@code drain} runs on its own thread,
 * then the process exits 0 (1 if the drain failed).
 */
public final class Shutdown {
    private Shutdown() {
    }

    public static void onSignal(Runnable drain) {
        Runnable handler = () -> {
            int code = 0;
            try {
                drain.run();
            } catch (RuntimeException | Error e) {
                System.err.println("shutdown: " + e);
                code = 1;
            }
            System.out.flush();
            System.exit(code);
        };
        boolean[] started = {false};
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), sig -> {
                synchronized (started) {
                    if (started[0]) return; // a second signal changes nothing: the drain is under way
                    started[0] = true;
                }
                // not a daemon (the signal thread is one, and would pass that on): the JVM must wait for the drain
                Thread.ofPlatform().name("shutdown").daemon(false).start(handler);
            });
        }
    }
}
