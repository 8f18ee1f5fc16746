package io.github.once.api;

import io.github.once.spi.IdempotencyStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record of the published API: for every published module, its exported types and their public and protected
 * members with their signatures, in {@code api/<module>.txt}. The test fails when the code and the record differ,
 * so that every change of the public API shows in a diff and is made on purpose: review the change, then write the
 * record anew with {@code mvn -pl once-api-tests test -Donce.api.write=true} (after building the modules) and
 * commit it with the change.
 */
class ApiRecordTest {

    /** The most public top-level types the published libraries may export together. */
    private static final int MOST_TOP_LEVEL_TYPES = 70;

    private static final Path RECORDS = Published.ROOT.resolve("api");

    @Test
    void theRecordedApiIsTheApi() {
        boolean write = Boolean.getBoolean("once.api.write");
        List<String> differing = new ArrayList<>();
        for (Published module : Published.all()) {
            String api = describe(module);
            Path record = RECORDS.resolve(module.directory() + ".txt");
            String recorded = Files.exists(record) ? Published.read(record) : "";
            if (!api.equals(recorded)) {
                if (write) {
                    write(record, api);
                } else {
                    differing.add(module.directory());
                }
            }
        }
        assertThat(differing).as("modules whose API differs from api/<module>.txt: review the change, then write"
                + " the records anew with mvn -pl once-api-tests test -Donce.api.write=true").isEmpty();
    }

    @Test
    void noExportedSignatureNamesAnImplementationType() {
        List<String> leaks = new ArrayList<>();
        for (Published module : Published.all()) {
            describe(module).lines().filter(line -> line.contains(".internal.")).forEach(leaks::add);
        }
        assertThat(leaks).as("exported members whose signature names a type of an internal package").isEmpty();
    }

    @Test
    void theLibrariesExportAtMostSeventyTopLevelTypes() {
        List<String> types = new ArrayList<>();
        for (Published module : Published.all()) {
            for (Class<?> type : exportedTopLevelTypes(module)) {
                types.add(type.getName());
            }
        }
        assertThat(types).as("public top-level types in exported packages").hasSizeLessThanOrEqualTo(MOST_TOP_LEVEL_TYPES);
    }

    @Test
    void everyExportedTypeSaysWhatItIsFor() {
        List<String> undocumented = new ArrayList<>();
        for (Published module : Published.all()) {
            for (Class<?> top : exportedTopLevelTypes(module)) {
                Path source = module.sources().resolve(top.getName().replace('.', '/') + ".java");
                String text = Published.read(source);
                for (Class<?> type : withNestedApiTypes(top)) {
                    if (!documented(text, type.getSimpleName())) {
                        undocumented.add(type.getName());
                    }
                }
            }
        }
        assertThat(undocumented).as("exported types without a javadoc comment").isEmpty();
    }

    @Test
    void theStoreSpiHasAtMostEightMethods() {
        List<String> methods = Arrays.stream(IdempotencyStore.class.getDeclaredMethods())
                .filter(m -> !m.isSynthetic() && !Modifier.isStatic(m.getModifiers()))
                .map(Method::getName).sorted().toList();
        assertThat(methods).hasSizeLessThanOrEqualTo(8);
    }

    /** The module's API as text: one block per exported type, its members sorted. */
    static String describe(Published module) {
        StringBuilder out = new StringBuilder();
        out.append("# ").append(module.name()).append(": exports ").append(String.join(", ", module.exports()))
                .append('\n');
        for (Class<?> top : exportedTopLevelTypes(module)) {
            for (Class<?> type : withNestedApiTypes(top)) {
                out.append('\n').append(header(type)).append('\n');
                for (String member : members(type)) {
                    out.append("  ").append(member).append('\n');
                }
            }
        }
        return out.toString();
    }

    /** The public top-level types of the module's exported packages, by name. */
    static List<Class<?>> exportedTopLevelTypes(Published module) {
        List<Class<?>> types = new ArrayList<>();
        for (String pkg : module.exports()) {
            Path dir = module.classes().resolve(pkg.replace('.', '/'));
            assertThat(dir).as("compiled classes of " + pkg).isDirectory();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class")) {
                        Class<?> type = load(pkg + "." + name.substring(0, name.length() - ".class".length()));
                        if (Modifier.isPublic(type.getModifiers())) {
                            types.add(type);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return types;
    }

    /** {@code top} and its public and protected nested types, depth first, by name. */
    private static List<Class<?>> withNestedApiTypes(Class<?> top) {
        List<Class<?>> all = new ArrayList<>();
        all.add(top);
        Arrays.stream(top.getDeclaredClasses())
                .filter(c -> Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers()))
                .sorted((a, b) -> a.getName().compareTo(b.getName()))
                .forEach(nested -> all.addAll(withNestedApiTypes(nested)));
        return all;
    }

    private static String header(Class<?> type) {
        String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface" : type.isEnum() ? "enum"
                : type.isRecord() ? "record" : "class";
        int modifiers = type.getModifiers() & ~Modifier.INTERFACE;
        if (type.isInterface()) {
            modifiers &= ~Modifier.ABSTRACT; // every interface is abstract: saying so adds nothing
        }
        StringBuilder h = new StringBuilder(Modifier.toString(modifiers)).append(' ').append(kind).append(' ')
                .append(type.getName());
        Type superclass = publicSuperclass(type);
        if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
            h.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0 && !type.isAnnotation()) {
            h.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(interfaces)
                    .map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        if (type.isSealed()) {
            h.append(" permits ").append(Arrays.stream(type.getPermittedSubclasses()).map(Class::getName)
                    .sorted().collect(Collectors.joining(", ")));
        }
        return h.toString();
    }

    /**
     * The type's public and protected members, with those it inherits from superclasses that are not public
     * themselves (a package-private base class): users see them as the type's own, and so does the record.
     */
    private static List<String> members(Class<?> type) {
        List<String> members = new ArrayList<>();
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (api(c.getModifiers()) && !c.isSynthetic()) {
                members.add(c.toGenericString());
            }
        }
        Map<String, String> typeArguments = new HashMap<>();
        for (Class<?> c = type; c != null && (c == type || !Modifier.isPublic(c.getModifiers()));
             c = c.getSuperclass()) {
            String declaredIn = c.getName() + ".";
            for (Method m : c.getDeclaredMethods()) {
                if (api(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
                    members.add(inherited(m.toGenericString(), declaredIn, type, typeArguments));
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (api(f.getModifiers()) && !f.isSynthetic()) {
                    members.add(inherited(f.toGenericString(), declaredIn, type, typeArguments));
                }
            }
            if (c.getGenericSuperclass() instanceof ParameterizedType p) {
                TypeVariable<?>[] names = ((Class<?>) p.getRawType()).getTypeParameters();
                for (int i = 0; i < names.length; i++) {
                    typeArguments.put(names[i].getName(), p.getActualTypeArguments()[i].getTypeName());
                }
            }
        }
        members.sort(null);
        return members;
    }

    /** A member as the type that inherits it shows it: named after that type, its type variables filled in. */
    private static String inherited(String member, String declaredIn, Class<?> type, Map<String, String> arguments) {
        String shown = member.replace(declaredIn, type.getName() + ".");
        for (Map.Entry<String, String> a : arguments.entrySet()) {
            shown = shown.replaceAll("\\b" + a.getKey() + "\\b", Matcher.quoteReplacement(a.getValue()));
        }
        return shown;
    }

    /** The nearest public superclass: a package-private base class is not part of the API. */
    private static Type publicSuperclass(Class<?> type) {
        Type superclass = type.getGenericSuperclass();
        while (superclass != null && !Modifier.isPublic(raw(superclass).getModifiers())) {
            superclass = raw(superclass).getGenericSuperclass();
        }
        return superclass;
    }

    private static Class<?> raw(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    private static boolean api(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** Whether the declaration of {@code name} in {@code source} comes right after a javadoc comment. */
    private static boolean documented(String source, String name) {
        String[] lines = source.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.matches("(?:(?:public|protected|static|final|abstract|sealed|non-sealed)\\s+)*"
                    + "(?:class|interface|enum|record|@interface)\\s+" + name + "\\b.*")) {
                // Back over the annotations (some span lines) to the javadoc's end, or to the code before it.
                for (int j = i - 1; j >= 0; j--) {
                    String before = lines[j].strip();
                    if (before.endsWith("*/")) {
                        return true;
                    }
                    if (!before.startsWith("@") && (before.endsWith(";") || before.endsWith("{") || before.endsWith("}"))) {
                        return false;
                    }
                }
                return false;
            }
        }
        return false;
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ApiRecordTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("cannot load " + name, e);
        }
    }

    private static void write(Path record, String api) {
        try {
            Files.createDirectories(record.getParent());
            Files.writeString(record, api);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
