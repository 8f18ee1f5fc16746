package io.github.once.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The boundaries of the published modules, read from their {@code module-info.java} and their sources: what each
 * exports (its API and, where it has one, its SPI; everything else sits in an {@code internal} package), which
 * Once modules it may require (dependencies point one way), and that no source anywhere in the repository, tests
 * included, imports a package another module does not export.
 */
class ModuleBoundariesTest {

    /** What each published module exports, and nothing else. */
    private static final Map<String, List<String>> EXPORTS = new LinkedHashMap<>();
    /** The Once modules each published module requires, and no other. */
    private static final Map<String, Set<String>> REQUIRES = new LinkedHashMap<>();

    static {
        exports("io.github.once.core", Set.of(), "io.github.once", "io.github.once.spi");
        exports("io.github.once.testkit", Set.of("io.github.once.core"), "io.github.once.testkit");
        exports("io.github.once.rabbitmq", Set.of("io.github.once.core"),
                "io.github.once.rabbitmq", "io.github.once.rabbitmq.container");
        exports("io.github.once.jdbc", Set.of("io.github.once.core"), "io.github.once.jdbc");
        exports("io.github.once.redis", Set.of("io.github.once.core"), "io.github.once.redis");
        exports("io.github.once.tiered", Set.of("io.github.once.core"), "io.github.once.tiered");
        exports("io.github.once.outbox", Set.of("io.github.once.jdbc", "io.github.once.rabbitmq"),
                "io.github.once.outbox");
        exports("io.github.once.spring.rabbit", Set.of("io.github.once.rabbitmq"), "io.github.once.spring.rabbit");
        exports("io.github.once.spring.boot", Set.of("io.github.once.spring.rabbit", "io.github.once.jdbc",
                "io.github.once.redis", "io.github.once.micrometer"), "io.github.once.spring.boot");
        exports("io.github.once.micrometer", Set.of("io.github.once.rabbitmq"), "io.github.once.micrometer");
    }

    private static void exports(String module, Set<String> requires, String... packages) {
        EXPORTS.put(module, List.of(packages));
        REQUIRES.put(module, requires);
    }

    @Test
    void everyPublishedModuleExportsItsApiAndSpiOnly() {
        Map<String, List<String>> declared = new LinkedHashMap<>();
        for (Published module : Published.all()) {
            declared.put(module.name(), module.exports());
        }
        assertThat(declared).isEqualTo(EXPORTS);
    }

    @Test
    void whatAModuleDoesNotExportIsItsImplementation() {
        List<String> misplaced = new ArrayList<>();
        for (Published module : Published.all()) {
            for (String pkg : module.packages()) {
                if (!module.exports().contains(pkg) && !pkg.endsWith(".internal")) {
                    misplaced.add(module.directory() + ": " + pkg);
                }
            }
        }
        assertThat(misplaced).as("packages neither exported nor named internal").isEmpty();
    }

    @Test
    void dependenciesPointOneWay() {
        Map<String, Set<String>> declared = new LinkedHashMap<>();
        for (Published module : Published.all()) {
            declared.put(module.name(), module.requires().stream().filter(r -> r.startsWith("io.github.once."))
                    .collect(Collectors.toCollection(TreeSet::new)));
        }
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        REQUIRES.forEach((module, requires) -> expected.put(module, new TreeSet<>(requires)));
        assertThat(declared).isEqualTo(expected);
    }

    @Test
    void springRabbitNeedsNoStoreModule() {
        String pom = Published.read(Published.ROOT.resolve("once-spring-rabbit/pom.xml"));
        assertThat(pom).doesNotContain("<artifactId>once-jdbc</artifactId>")
                .doesNotContain("<artifactId>once-redis</artifactId>");
    }

    @Test
    void noSourceImportsAnotherModulesImplementation() {
        Map<String, Published> owner = new LinkedHashMap<>();
        for (Published module : Published.all()) {
            module.packages().forEach(pkg -> owner.put(pkg, module));
        }
        List<String> violations = new ArrayList<>();
        for (Path dir : repositoryModules()) {
            for (String sourceSet : List.of("src/main/java", "src/test/java")) {
                for (Path file : Published.javaFiles(dir.resolve(sourceSet))) {
                    for (String imported : Published.imports(file)) {
                        Published module = owner.get(packageOf(imported));
                        if (module != null && !module.exports().contains(packageOf(imported))
                                && !dir.getFileName().toString().equals(module.directory())) {
                            violations.add(Published.ROOT.relativize(file) + " imports " + imported);
                        }
                    }
                }
            }
        }
        assertThat(violations).as("imports of a package its module does not export").isEmpty();
    }

    @Test
    void everyPackageSaysWhoItIsFor() {
        List<String> missing = new ArrayList<>();
        for (Published module : Published.all()) {
            for (String pkg : module.packages()) {
                Path info = module.sources().resolve(pkg.replace('.', '/')).resolve("package-info.java");
                if (!Files.exists(info)) {
                    missing.add(Published.ROOT.relativize(info).toString());
                }
            }
        }
        assertThat(missing).as("packages without a package-info.java").isEmpty();
    }

    @Test
    void theChecksSeeTheWholeReactor() {
        // Guards the checks above against passing on an empty tree (a moved module, a wrong working directory).
        assertThat(Published.all()).extracting(Published::directory)
                .contains("once-core", "once-redis", "once-jdbc", "once-tiered", "once-rabbitmq", "once-testkit");
        assertThat(repositoryModules()).extracting(p -> p.getFileName().toString())
                .contains("once-cli", "once-bench", "order-flow");
        assertThat(Published.of("once-jdbc").packages()).contains("io.github.once.jdbc.internal");
    }

    /** Every module of the repository with sources: the published ones, the tools and the examples. */
    private static List<Path> repositoryModules() {
        List<Path> modules = new ArrayList<>();
        for (Path parent : List.of(Published.ROOT, Published.ROOT.resolve("examples"))) {
            try (Stream<Path> children = Files.list(parent)) {
                children.filter(p -> Files.isDirectory(p.resolve("src"))).sorted().forEach(modules::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return modules;
    }

    private static String packageOf(String imported) {
        // Imports name a class (or a static member): drop the trailing capitalised parts.
        StringBuilder pkg = new StringBuilder();
        for (String part : imported.split("\\.")) {
            if (!part.isEmpty() && Character.isUpperCase(part.charAt(0))) {
                break;
            }
            pkg.append(pkg.length() == 0 ? "" : ".").append(part);
        }
        return pkg.toString();
    }
}
