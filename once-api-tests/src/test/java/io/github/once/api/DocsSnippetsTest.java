package io.github.once.api;

import io.github.once.spring.boot.OnceProperties;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every fenced code block of README.md and the top-level pages of docs/ (not the dated logs under docs/benchmarks/
 * nor docs/internals/) that is Java, XML, properties or YAML, checked against this build, so that a renamed class,
 * method, builder option, module or property fails it with the page and line:
 * <ul>
 *   <li>{@code java}: compiled with javac against this module's test class path (every published module). A block
 *       that starts with {@code package} or {@code import} is a whole file and compiles as it is; a block that
 *       starts with a type declaration gets the common imports; a block of methods goes into a class, a block of
 *       statements into a method of one. The common imports are every package the published modules export and
 *       {@link #JDK_PACKAGES}. Whatever else a fragment assumes, the HTML comment right above its fence declares:
 *       {@code <!-- given: import com.rabbitmq.client.Connection; Connection connection; void ship(byte[] body) -->},
 *       items separated by {@code ;}: imports, fields, methods (made abstract) and nested types of the reader's.</li>
 *   <li>{@code xml}: well-formed, and every {@code io.github.once} artifact it names is one the BOM publishes.</li>
 *   <li>{@code properties} and {@code yaml}: loaded; the {@code once.*} keys bind to the starter's
 *       {@link OnceProperties} as Spring Boot binds them, and none is left unbound (a key the starter does not
 *       have); every value naming a {@code db/once/} location is on the class path.</li>
 * </ul>
 * Blocks in other languages (shell, SQL, text, diagrams) are not checked, so {@link #noCheckableCodeHidesUnderAnotherTag}
 * makes sure none of them is Java, a pom or a property file.
 */
class DocsSnippetsTest {

    /** Packages every fragment may use by simple name, besides the ones the published modules export. */
    static final List<String> JDK_PACKAGES = List.of("java.io", "java.nio.charset", "java.nio.file", "java.sql",
            "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "javax.sql");

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");
    private static final Pattern GIVEN_START = Pattern.compile("^\\s*<!--\\s*given:");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)", Pattern.MULTILINE);
    private static final Pattern TYPE_DECLARATION =
            Pattern.compile("^(?:(?:public|abstract|final|sealed|static)\\s+)*(?:class|interface|record|enum)\\s+\\w+");
    private static final Pattern MEMBER = Pattern.compile(
            "^(?:(?:(?:public|protected|private|static|final|abstract|synchronized)\\s+)+|void\\s+)");
    private static final Pattern GIVEN_TYPE = Pattern.compile("^(?:abstract\\s+)?(?:class|interface|record|enum)\\b");
    private static final Pattern GIVEN_METHOD = Pattern.compile("^[\\w<>\\[\\],.? ]+\\s+\\w+\\s*\\(.*\\)(?:\\s*throws\\s+[\\w., ]+)?$",
            Pattern.DOTALL);
    private static final List<String> CHECKED = List.of("java", "xml", "properties", "yaml");

    /** A fenced block: its page, the page line of its first code line, its language, its code, what it is given. */
    record Block(String page, int line, String language, String code, Given given) {
        String at(int lineInBlock) {
            return page + ":" + (line + lineInBlock - 1);
        }
    }

    /** A {@code <!-- given: ... -->} comment: the page line where it starts and its items. */
    record Given(int line, List<String> items) {
    }

    @Test
    void everyJavaBlockCompilesAgainstThisBuild(@TempDir Path classes) throws IOException {
        List<String> failures = new ArrayList<>();
        StringBuilder imports = new StringBuilder();
        List<String> packages = new ArrayList<>(JDK_PACKAGES);
        Published.all().forEach(m -> packages.addAll(m.exports()));
        packages.forEach(p -> imports.append("import ").append(p).append(".*;\n"));
        List<Source> sources = new ArrayList<>();
        for (Block block : blocks(failures)) {
            if (block.language().equals("java")) {
                sources.add(Source.of(block, sources.size(), imports.toString(), failures));
            }
        }
        assertThat(sources).as("Java blocks in the docs").isNotEmpty();

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none",
                "-classpath", System.getProperty("java.class.path"), "-d", classes.toString());
        boolean compiled;
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            compiled = javac.getTask(null, files, diagnostics, options, null, sources).call();
        }
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                failures.add(d.getSource() instanceof Source s ? s.explain(d) : d.getMessage(Locale.ROOT));
            }
        }
        assertThat(failures).as("Java blocks of the docs that do not compile against this build").isEmpty();
        assertThat(compiled).as("javac's verdict on the docs' Java blocks").isTrue();
    }

    @Test
    void everyXmlBlockIsWellFormedAndNamesOnlyPublishedArtifacts() throws Exception {
        List<String> published = new ArrayList<>(List.of("once-bom"));
        Published.all().forEach(m -> published.add(m.directory()));
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Block block : blocks(failures)) {
            if (!block.language().equals("xml")) {
                continue;
            }
            checked++;
            // A fragment (one or more elements) gets a root; the root opens on the first line, so lines still match.
            String text = block.code().startsWith("<?xml") ? block.code() : "<snippet>" + block.code() + "</snippet>";
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            org.w3c.dom.Document xml;
            try {
                xml = factory.newDocumentBuilder().parse(new InputSource(new StringReader(text)));
            } catch (SAXParseException e) {
                failures.add(block.at(e.getLineNumber()) + ": not well-formed XML: " + e.getMessage());
                continue;
            }
            NodeList groups = xml.getElementsByTagName("groupId");
            for (int i = 0; i < groups.getLength(); i++) {
                Element owner = (Element) groups.item(i).getParentNode();
                NodeList artifact = owner.getElementsByTagName("artifactId");
                String name = artifact.getLength() > 0 ? artifact.item(0).getTextContent().strip() : "";
                if (groups.item(i).getTextContent().strip().equals("io.github.once") && !published.contains(name)) {
                    failures.add(block.at(lineOf(block, name)) + ": io.github.once:" + name
                            + " is no artifact the BOM publishes " + published);
                }
            }
        }
        assertThat(checked).as("XML blocks in the docs").isPositive();
        assertThat(failures).as("XML blocks of the docs that are broken or name artifacts that do not exist").isEmpty();
    }

    @Test
    void everyPropertiesAndYamlBlockLoadsAndItsOnceKeysBindToTheStarter() throws IOException {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Block block : blocks(failures)) {
            Map<String, Object> entries = new LinkedHashMap<>();
            try {
                if (block.language().equals("properties")) {
                    Properties properties = new Properties();
                    properties.load(new StringReader(block.code()));
                    properties.forEach((k, v) -> entries.put((String) k, v));
                } else if (block.language().equals("yaml")) {
                    flatten("", new Yaml(new SafeConstructor(new LoaderOptions())).load(block.code()), entries);
                } else {
                    continue;
                }
            } catch (RuntimeException e) {
                failures.add(block.at(1) + ": does not load as " + block.language() + ": " + e.getMessage());
                continue;
            }
            checked++;
            Map<String, Object> once = new LinkedHashMap<>();
            entries.forEach((key, value) -> {
                if (key.startsWith("once.")) {
                    once.put(key, value);
                }
                for (String location : String.valueOf(value).split(",")) {
                    String resource = location.strip().replaceFirst("^classpath:", "");
                    if (resource.contains("db/once/") && getClass().getClassLoader().getResource(resource) == null) {
                        failures.add(block.at(lineOf(block, location.strip())) + ": " + key + " names " + resource
                                + ", which no module ships");
                    }
                }
            });
            try {
                // As Boot binds them at start-up, except that a key the starter does not have fails here.
                new Binder(new MapConfigurationPropertySource(once))
                        .bind("once", Bindable.of(OnceProperties.class), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            } catch (BindException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                String key = cause instanceof UnboundConfigurationPropertiesException unbound
                        ? unbound.getUnboundProperties().iterator().next().getName().toString() : e.getName().toString();
                failures.add(block.at(lineOf(block, key)) + ": " + key + " does not bind to the starter's"
                        + " OnceProperties: " + cause.getMessage());
            }
        }
        assertThat(checked).as("properties and YAML blocks in the docs").isPositive();
        assertThat(failures).as("properties and YAML blocks of the docs that the starter would not take").isEmpty();
    }

    /**
     * Java, a pom fragment or {@code once.*} properties in a block tagged otherwise (or not at all) would escape
     * the checks above: the pages tag them so that they are checked.
     */
    @Test
    void noCheckableCodeHidesUnderAnotherTag() throws IOException {
        Pattern looksCheckable = Pattern.compile("^\\s*(?:(?:package|import)\\s+[\\w.]+(?:\\.\\*)?\\s*;"
                + "|<(?:dependency|project|parent)>|once\\.[\\w.-]+\\s*[=:])|\\b[A-Z]\\w*\\.builder\\(",
                Pattern.MULTILINE);
        List<String> failures = new ArrayList<>();
        for (Block block : blocks(failures)) {
            Matcher m = looksCheckable.matcher(block.code());
            if (!CHECKED.contains(block.language()) && m.find()) {
                failures.add(block.at(lineOf(block, m.group().strip())) + ": a ```" + block.language()
                        + " block with code to check: " + m.group().strip());
            }
        }
        assertThat(failures).as("code in blocks that are not tagged java, xml, properties or yaml").isEmpty();
    }

    /** The pages whose blocks are checked: the README and docs/*.md. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Published.ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(Published.ROOT.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The fenced blocks of every page; a given comment that is not right above a Java block is a failure. */
    static List<Block> blocks(List<String> failures) throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path file : pages()) {
            String page = Published.ROOT.relativize(file).toString();
            List<String> lines = Files.readAllLines(file);
            Given given = null;
            for (int i = 0; i < lines.size(); i++) {
                if (GIVEN_START.matcher(lines.get(i)).find()) {
                    int start = i;
                    StringBuilder text = new StringBuilder(lines.get(i));
                    while (!lines.get(i).contains("-->") && i + 1 < lines.size()) {
                        text.append('\n').append(lines.get(++i));
                    }
                    String body = text.substring(text.indexOf("given:") + "given:".length(), text.indexOf("-->"));
                    given = new Given(start + 1, items(body));
                    if (i + 1 >= lines.size() || !lines.get(i + 1).strip().equals("```java")) {
                        failures.add(page + ":" + (start + 1) + ": a given comment must stand right above a ```java block");
                        given = null;
                    }
                    continue;
                }
                Matcher fence = FENCE.matcher(lines.get(i));
                if (!fence.matches()) {
                    continue;
                }
                String indent = fence.group(1);
                int first = i + 1;
                StringBuilder code = new StringBuilder();
                for (i = first; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    String line = lines.get(i);
                    code.append(line.startsWith(indent) ? line.substring(indent.length()) : line).append('\n');
                }
                blocks.add(new Block(page, first + 1, fence.group(2), code.toString(), given));
                given = null;
            }
        }
        return blocks;
    }

    /** The items of a given comment: split at the semicolons outside parentheses and braces. */
    private static List<String> items(String body) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        StringBuilder item = new StringBuilder();
        for (char c : body.toCharArray()) {
            depth += c == '(' || c == '{' ? 1 : c == ')' || c == '}' ? -1 : 0;
            if (c == ';' && depth == 0) {
                items.add(item.toString().strip());
                item.setLength(0);
            } else {
                item.append(c);
            }
        }
        items.add(item.toString().strip());
        items.removeIf(String::isEmpty);
        return items;
    }

    /** The line of the block (from 1) where {@code text} first appears, else its first line. */
    private static int lineOf(Block block, String text) {
        List<String> lines = block.code().lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!text.isEmpty() && lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        return 1;
    }

    /** YAML as dotted keys, the way Spring Boot flattens it ({@code a.b[0].c}). */
    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Object node, Map<String, Object> out) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, out));
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                flatten(prefix + "[" + i + "]", list.get(i), out);
            }
        } else {
            out.put(prefix, node);
        }
    }

    /** A Java block as javac compiles it: its source, and where the block's first line sits in it. */
    static final class Source extends SimpleJavaFileObject {
        private final Block block;
        private final String source;
        private final int codeLine;

        private Source(Block block, String path, String source, int codeLine) {
            super(URI.create("string:///" + path + Kind.SOURCE.extension), Kind.SOURCE);
            this.block = block;
            this.source = source;
            this.codeLine = codeLine;
        }

        /** The compilation unit of the {@code index}th Java block, wrapped as its kind needs. */
        static Source of(Block block, int index, String imports, List<String> failures) {
            String code = block.code();
            String first = code.lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("//") && !l.startsWith("/*") && !l.startsWith("*"))
                    .findFirst().orElse("");
            String declaration = code.lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("@") && !l.startsWith("//")).findFirst().orElse("");
            List<String> given = block.given() == null ? List.of() : block.given().items();
            if (first.startsWith("package ") || first.startsWith("import ")) {
                if (!given.isEmpty()) {
                    failures.add(block.at(1) + ": a whole file shows its own imports and declarations, it takes no given");
                }
                Matcher pkg = PACKAGE.matcher(code);
                String dir = pkg.find() ? pkg.group(1).replace('.', '/') + "/" : "";
                return new Source(block, dir + typeName(code), code, 1);
            }
            StringBuilder header = new StringBuilder("package snippets.b" + index + ";\n").append(imports);
            StringBuilder members = new StringBuilder();
            for (String item : given) {
                if (item.startsWith("import ")) {
                    header.append(item).append(";\n");
                } else if (GIVEN_TYPE.matcher(item).lookingAt()) {
                    members.append(item.startsWith("interface") || item.startsWith("record")
                            || item.startsWith("enum") ? "" : "static ").append(item).append('\n');
                } else if (GIVEN_METHOD.matcher(item).matches()) {
                    members.append("abstract ").append(item).append(";\n");
                } else {
                    members.append(item).append(";\n");
                }
            }
            String path = "snippets/b" + index + "/";
            if (TYPE_DECLARATION.matcher(declaration).lookingAt()) {
                if (members.length() > 0) {
                    failures.add(block.at(1) + ": a type declaration takes only imports as given");
                }
                return new Source(block, path + typeName(code), header + code, lines(header));
            }
            boolean statements = !first.startsWith("@") && !MEMBER.matcher(first).lookingAt();
            String open = header + "abstract class Snippet {\n" + members
                    + (statements ? "void snippet() throws Exception {\n" : "");
            String close = statements ? "}\n}\n" : "}\n";
            return new Source(block, path + "Snippet", open + code + close, lines(open));
        }

        private static String typeName(String code) {
            Matcher type = PUBLIC_TYPE.matcher(code);
            return type.find() ? type.group(1) : "Snippet";
        }

        private static int lines(CharSequence text) {
            return (int) text.chars().filter(c -> c == '\n').count() + 1;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
        }

        /** A compiler error as page, line and message; an error outside the block is the given comment's. */
        String explain(Diagnostic<? extends JavaFileObject> d) {
            int inBlock = (int) d.getLineNumber() - codeLine + 1;
            int blockLines = (int) block.code().lines().count();
            String where = inBlock >= 1 && inBlock <= blockLines ? block.at(inBlock)
                    : block.given() != null ? block.page() + ":" + block.given().line() + " (given)" : block.at(1);
            String line = d.getLineNumber() > 0 ? source.lines().skip(d.getLineNumber() - 1).findFirst().orElse("")
                    : "";
            return where + ": " + d.getMessage(Locale.ROOT) + "\n        " + line.strip();
        }
    }
}
