package io.github.once.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Reads every module's sources and checks the boundaries the design sets: an {@code internal} package is used only
 * by the module that owns it, and dependencies point one way (stores and the adapter depend on core; core on none
 * of them; a store never knows RabbitMQ; the adapter never knows which store it has).
 */
class ModuleBoundariesTest {

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(io\\.github\\.once[\\w.]*)\\s*;",
            Pattern.MULTILINE);

    /** Library modules and the packages of other Once modules their main sources must never import. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.of(
            "once-core", Set.of("io.github.once.redis", "io.github.once.jdbc", "io.github.once.rabbitmq",
                    "io.github.once.testkit"),
            "once-redis", Set.of("io.github.once.jdbc", "io.github.once.rabbitmq"),
            "once-jdbc", Set.of("io.github.once.redis", "io.github.once.rabbitmq"),
            "once-rabbitmq", Set.of("io.github.once.redis", "io.github.once.jdbc"));

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void internalPackagesAreUsedOnlyByTheirOwnModule() {
        List<String> violations = new ArrayList<>();
        for (Path module : modules()) {
            for (String sourceSet : List.of("src/main/java", "src/test/java")) {
                for (Path file : javaFiles(module.resolve(sourceSet))) {
                    for (String imported : imports(file)) {
                        String pkg = packageOf(imported);
                        if (pkg.endsWith(".internal") && !owns(module, pkg)) {
                            violations.add(ROOT.relativize(file) + " imports " + imported);
                        }
                    }
                }
            }
        }
        assertThat(violations).as("imports of another module's internal package").isEmpty();
    }

    @Test
    void dependenciesPointOneWay() {
        List<String> violations = new ArrayList<>();
        FORBIDDEN.forEach((module, forbidden) -> {
            Path sources = ROOT.resolve(module).resolve("src/main/java");
            assertThat(sources).as("sources of " + module).isDirectory();
            for (Path file : javaFiles(sources)) {
                for (String imported : imports(file)) {
                    for (String pkg : forbidden) {
                        if (imported.startsWith(pkg + ".")) {
                            violations.add(ROOT.relativize(file) + " imports " + imported);
                        }
                    }
                }
            }
        });
        assertThat(violations).as("imports against the direction of module dependencies").isEmpty();
    }

    @Test
    void everyPackageSaysWhoItIsFor() {
        List<String> missing = new ArrayList<>();
        for (Path module : modules()) {
            Path sources = module.resolve("src/main/java");
            for (Path file : javaFiles(sources)) {
                Path packageInfo = file.getParent().resolve("package-info.java");
                if (!Files.exists(packageInfo) && !missing.contains(ROOT.relativize(packageInfo).toString())) {
                    missing.add(ROOT.relativize(packageInfo).toString());
                }
            }
        }
        assertThat(missing).as("packages without a package-info.java").isEmpty();
    }

    @Test
    void theCheckSeesTheWholeReactor() {
        // Guards the checks above against passing on an empty tree (a moved module, a wrong working directory).
        assertThat(modules()).extracting(p -> p.getFileName().toString())
                .contains("once-core", "once-redis", "once-jdbc", "once-rabbitmq", "once-cli", "once-testkit");
        assertThat(javaFiles(ROOT.resolve("once-jdbc/src/main/java")).stream()
                .flatMap(f -> imports(f).stream())).contains("io.github.once.spi.IdempotencyStore");
    }

    private static List<Path> modules() {
        try (Stream<Path> children = Files.list(ROOT)) {
            return children.filter(p -> p.getFileName().toString().startsWith("once-"))
                    .filter(p -> Files.isDirectory(p.resolve("src/main/java")))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean owns(Path module, String pkg) {
        return Files.isDirectory(module.resolve("src/main/java").resolve(pkg.replace('.', '/')));
    }

    private static String packageOf(String imported) {
        // Imports name a class (or a static member): drop the trailing capitalised parts.
        String[] parts = imported.split("\\.");
        StringBuilder pkg = new StringBuilder();
        for (String part : parts) {
            if (!part.isEmpty() && Character.isUpperCase(part.charAt(0))) {
                break;
            }
            pkg.append(pkg.length() == 0 ? "" : ".").append(part);
        }
        return pkg.toString();
    }

    private static List<String> imports(Path file) {
        try {
            Matcher m = IMPORT.matcher(Files.readString(file));
            List<String> found = new ArrayList<>();
            while (m.find()) {
                found.add(m.group(1));
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> javaFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
