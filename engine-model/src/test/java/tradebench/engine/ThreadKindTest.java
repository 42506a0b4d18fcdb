package tradebench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadKindTest {
    @Test
    void threadsIsPlatformByDefaultOrVirtualAndNothingElse() {
        assertEquals(ThreadKind.PLATFORM, ThreadKind.of(Config.from(Map.of())));
        assertEquals(ThreadKind.VIRTUAL, ThreadKind.of(Config.from(Map.of("THREADS", "virtual"))));
        assertEquals(ThreadKind.VIRTUAL, ThreadKind.of(Config.from(Map.of("THREADS", "Virtual"))));
        assertEquals(ThreadKind.PLATFORM, ThreadKind.of(Config.from(Map.of("THREADS", " PLATFORM "))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ThreadKind.of(Config.from(Map.of("THREADS", "green"))));
        assertEquals("THREADS must be platform or virtual, not 'green'", e.getMessage());
    }

    @Test
    void virtualEnginesRunOnVirtualThreads() throws Exception {
        boolean[] virtual = new boolean[1];
        ThreadKind.VIRTUAL.start("t", () -> virtual[0] = Thread.currentThread().isVirtual()).join();
        assertEquals(true, virtual[0]);
    }
}
