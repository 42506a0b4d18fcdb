package tradebench.loadclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load client's parts (load, verify, reliability, ceiling) each own their entry point and use none of each
 * other's classes: what they share is the root package, {@code http} and {@code audit}, which use no part. Only
 * {@link Main} names the parts, to dispatch to them. Read from the sources (the module's directory is the tests'
 * working directory).
 */
class PartsTest {

    private static final List<String> PARTS = List.of("load", "verify", "reliability", "ceiling");
    private static final Path SOURCES = Path.of("src/main/java/tradebench/loadclient");
    private static final Pattern NAMED = Pattern.compile("tradebench\\.loadclient\\.(\\w+)\\.");

    /** Every "file: part" a file of package {@code own} under {@code root} names though it belongs to another part. */
    private static List<String> crossings(Path root, String own) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path rel = root.relativize(f);
                String inPackage = rel.getNameCount() > 1 ? rel.getName(0).toString() : "";
                if (inPackage.isEmpty() && f.getFileName().toString().equals("Main.java")) continue;
                if (!inPackage.equals(own)) continue;
                Matcher m = NAMED.matcher(Files.readString(f));
                while (m.find()) {
                    if (PARTS.contains(m.group(1)) && !m.group(1).equals(own)) found.add(f.getFileName() + ": " + m.group(1));
                }
            }
        }
        return found;
    }

    @Test
    void noPartUsesAnothersClassesAndTheSharedPackagesUseNoPart() throws IOException {
        for (String part : PARTS) {
            assertTrue(Files.isDirectory(SOURCES.resolve(part)), part);
            assertEquals(List.of(), crossings(SOURCES, part), part + " uses another part");
        }
        for (String shared : List.of("http", "audit")) {
            assertEquals(List.of(), crossings(SOURCES, shared), shared + " uses a part");
        }
        assertEquals(List.of(), crossings(SOURCES, ""), "the root package (but Main) uses a part");
    }

    @Test
    void aPartNamingAnothersClassIsFound(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("load"));
        Files.writeString(root.resolve("load/Borrower.java"), "package tradebench.loadclient.load;\n"
                + "import tradebench.loadclient.audit.SentOrder;\nimport tradebench.loadclient.verify.Verifier;\n");
        Files.writeString(root.resolve("Main.java"), "import tradebench.loadclient.load.Load;\n");
        assertEquals(List.of("Borrower.java: verify"), crossings(root, "load"));
        assertEquals(List.of(), crossings(root, ""), "Main may name the parts");
    }

    @Test
    void eachPartHasItsEntryPointAndMainDispatchesToThem() throws IOException {
        String main = Files.readString(SOURCES.resolve("Main.java"));
        for (String entry : List.of("load/Load.java", "ceiling/Ceiling.java", "verify/Verify.java", "reliability/Reliability.java")) {
            assertTrue(Files.exists(SOURCES.resolve(entry)), entry);
            String name = Path.of(entry).getFileName().toString().replace(".java", "");
            assertTrue(main.contains(name + ".run("), "Main dispatches to " + name);
        }
    }
}
