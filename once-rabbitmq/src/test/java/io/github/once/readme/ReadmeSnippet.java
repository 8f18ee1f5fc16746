package io.github.once.readme;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The code a quick-start test runs and the README shows: the lines between {@code // README:start} and
 * {@code // README:end} of a test's own source, de-indented by its method body's eight spaces. Shared through the
 * test jar with the outbox's quick-start test.
 */
public final class ReadmeSnippet {
    private static final String START = "// README:start\n";
    private static final String END = "        // README:end";
    private static final String INDENT = "        ";

    private ReadmeSnippet() {
    }

    /** The marked lines of {@code source} (a path from the module's folder), de-indented. */
    public static String of(String source) throws Exception {
        String text = Files.readString(Path.of(source));
        String region = text.substring(text.indexOf(START) + START.length(), text.indexOf(END));
        StringBuilder out = new StringBuilder();
        for (String line : region.split("\n", -1)) {
            out.append(line.startsWith(INDENT) ? line.substring(INDENT.length()) : line).append('\n');
        }
        return out.toString().stripTrailing();
    }
}
