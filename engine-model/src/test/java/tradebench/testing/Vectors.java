package tradebench.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Where the conformance vectors are: docs/conformance in this repository. */
public final class Vectors {
    private Vectors() {
    }

    public static Path root() {
        String r = System.getProperty("tradebench.root");
        Path repo = r != null ? Path.of(r) : Path.of("").toAbsolutePath();
        // Maven may start us in a module folder: walk up to the folder that has schema.sql
        while (repo != null && !Files.exists(repo.resolve("schema.sql"))) repo = repo.getParent();
        if (repo == null) throw new IllegalStateException("cannot find the repository root (schema.sql)");
        return repo;
    }

    public static Path folder() {
        Path dir = root().resolve("docs").resolve("conformance");
        if (!Files.isDirectory(dir)) throw new IllegalStateException("conformance vectors not found at " + dir);
        return dir;
    }

    /** Every NAME.scenario.json that has a NAME.result.json. */
    public static List<Path> scenarios() throws IOException {
        try (Stream<Path> s = Files.list(folder())) {
            List<Path> all = s.filter(p -> p.getFileName().toString().endsWith(".scenario.json")).sorted().toList();
            if (all.isEmpty()) throw new IllegalStateException("no conformance vectors in " + folder());
            return all;
        }
    }

    public static Path resultOf(Path scenario) {
        String name = scenario.getFileName().toString().replace(".scenario.json", ".result.json");
        return scenario.resolveSibling(name);
    }
}
