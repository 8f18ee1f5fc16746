package io.github.once.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The published modules (those the BOM lists), read from their sources: each module's name, what its
 * {@code module-info.java} exports and requires, and its source files.
 */
record Published(String directory, String name, List<String> exports, List<String> requires) {

    /** The repository's root: the parent of this module's directory, where Maven runs the tests. */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private static final Pattern MODULE = Pattern.compile("^module\\s+([\\w.]+)", Pattern.MULTILINE);
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern REQUIRES =
            Pattern.compile("^\\s*requires\\s+(?:transitive\\s+|static\\s+)*([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern BOM_ARTIFACT = Pattern.compile("<artifactId>(once-[\\w-]+)</artifactId>");
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?(io\\.github\\.once[\\w.]*)\\s*;", Pattern.MULTILINE);

    /** Every module the BOM publishes, in the BOM's order. */
    static List<Published> all() {
        List<Published> modules = new ArrayList<>();
        Matcher m = BOM_ARTIFACT.matcher(read(ROOT.resolve("once-bom/pom.xml")));
        while (m.find()) {
            if (!m.group(1).equals("once-bom")) {
                modules.add(of(m.group(1)));
            }
        }
        return modules;
    }

    static Published of(String directory) {
        Path info = ROOT.resolve(directory).resolve("src/main/java/module-info.java");
        if (!Files.exists(info)) {
            throw new AssertionError(directory + " is published but has no module-info.java");
        }
        String text = read(info);
        Matcher name = MODULE.matcher(text);
        if (!name.find()) {
            throw new AssertionError("no module declaration in " + info);
        }
        return new Published(directory, name.group(1), all(EXPORTS, text), all(REQUIRES, text));
    }

    Path sources() {
        return ROOT.resolve(directory).resolve("src/main/java");
    }

    /** The compiled classes of the module (the build compiles them before these tests run). */
    Path classes() {
        return ROOT.resolve(directory).resolve("target/classes");
    }

    /** The packages that have sources in the module. */
    List<String> packages() {
        return javaFiles(sources()).stream()
                .filter(f -> !f.getFileName().toString().equals("module-info.java"))
                .map(f -> sources().relativize(f.getParent()).toString().replace('/', '.'))
                .distinct().sorted().toList();
    }

    static List<String> imports(Path file) {
        return all(IMPORT, read(file));
    }

    static List<Path> javaFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
