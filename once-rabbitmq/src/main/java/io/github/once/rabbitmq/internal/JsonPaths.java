package io.github.once.rabbitmq.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Fields of a JSON body, named by top-level names or JSON Pointers, found in one streaming pass: subtrees off
 * every path are skipped by the tokenizer, and the pass ends as soon as the visitor has what it needs. Each path
 * is settled exactly once, with its value or with why it has none. Immutable and shared between threads.
 */
public final class JsonPaths {

    /** Deeper bodies are not JSON to Once. Message bodies are rarely more than a few levels deep. */
    public static final int MAX_NESTING_DEPTH = 200;
    /** Longest number literal, in characters (Jackson's default, stated so it cannot drift). */
    public static final int MAX_NUMBER_LENGTH = 1000;
    /** Longest string value read, in characters: ids that long are digested by the key layer. */
    static final int MAX_STRING_LENGTH = 20_000_000;
    /** Longest detail taken from a parse error: the message may quote the body. */
    private static final int MAX_ERROR_LENGTH = 200;

    public static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxStringLength(MAX_STRING_LENGTH)
                    .build())
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();

    /** What a pass reports, path by path (paths by their position in {@link #of}). */
    public interface Visitor {
        /** The parser is on the path's value: read all of it (a container up to its end token). True stops the pass. */
        boolean value(int path, JsonParser parser) throws IOException;

        /**
         * The path has no value: {@code why} is null when its last field is absent, else where the way broke off
         * ({@code there is no /order}, {@code /order is a string, not an object}). True stops the pass.
         */
        boolean missing(int path, String why);
    }

    /** One path: its text as given, and per segment the field name and the array index it may also be (or -1). */
    private record Path(String label, String[] names, int[] indexes, String[] prefixes) {
        int length() {
            return names.length;
        }

        boolean startsWith(Path other) {
            if (other.length() > length()) {
                return false;
            }
            for (int k = 0; k < other.length(); k++) {
                if (!names[k].equals(other.names[k])) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Path> paths;
    private final int[] all;

    private JsonPaths(List<Path> paths) {
        this.paths = paths;
        this.all = new int[paths.size()];
        Arrays.setAll(all, i -> i);
    }

    /**
     * Paths from arguments: one that starts with {@code /} is a JSON Pointer, any other a top-level field name.
     *
     * @throws IllegalArgumentException when there are none, one is blank, the root or malformed, or one path
     *                                  lies inside another (or repeats it)
     */
    public static JsonPaths of(String... specs) {
        Objects.requireNonNull(specs, "fields");
        if (specs.length == 0) {
            throw new IllegalArgumentException("at least one field name or JSON Pointer is needed");
        }
        List<Path> paths = new ArrayList<>(specs.length);
        for (String spec : specs) {
            Path path = parse(spec);
            for (Path earlier : paths) {
                if (path.startsWith(earlier) || earlier.startsWith(path)) {
                    throw new IllegalArgumentException("fields must not repeat or lie inside one another, but '"
                            + earlier.label() + "' and '" + spec + "' do");
                }
            }
            paths.add(path);
        }
        return new JsonPaths(List.copyOf(paths));
    }

    private static Path parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("a field name must not be blank, but was '" + spec + "'");
        }
        if (!spec.startsWith("/")) {
            return new Path(spec, new String[] {spec}, new int[] {-1}, new String[] {"the body"});
        }
        JsonPointer pointer;
        try {
            pointer = JsonPointer.compile(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + spec + "' is not a JSON Pointer: " + e.getMessage(), e);
        }
        List<String> names = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (JsonPointer p = pointer; !p.matches(); p = p.tail()) {
            names.add(p.getMatchingProperty());
            indexes.add(p.getMatchingIndex());
        }
        // Every '/' in a pointer separates segments (a '/' inside a name is written ~1), so prefixes are cuts.
        String[] prefixes = new String[names.size()];
        prefixes[0] = "the body";
        for (int k = 1, at = 0; k < prefixes.length; k++) {
            at = spec.indexOf('/', at + 1);
            prefixes[k] = spec.substring(0, at);
        }
        return new Path(spec, names.toArray(String[]::new), indexes.stream().mapToInt(Integer::intValue).toArray(),
                prefixes);
    }

    public int size() {
        return paths.size();
    }

    /** The path as it was given. */
    public String label(int path) {
        return paths.get(path).label();
    }

    /**
     * Reads the body until the visitor stops the pass or every path is settled. Content after that point is not
     * read, so a body that breaks off after its fields still gives them.
     *
     * @return false when the body holds no JSON value at all (empty or only whitespace)
     * @throws IOException when the body is not JSON up to where the pass ended, or breaks a read constraint
     */
    public boolean scan(byte[] body, Visitor visitor) throws IOException {
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() == null) {
                return false;
            }
            new Pass(parser, visitor).walk(all, 0);
            return true;
        }
    }

    /** A parse error for a detail: Jackson's own words, cut short, and where ({@code line:column}). */
    static String describe(JsonProcessingException e) {
        String message = String.valueOf(e.getOriginalMessage());
        if (message.length() > MAX_ERROR_LENGTH) {
            message = message.substring(0, MAX_ERROR_LENGTH - 3) + "...";
        }
        JsonLocation at = e.getLocation();
        return at == null ? message : message + " at " + at.getLineNr() + ":" + at.getColumnNr();
    }

    static String kind(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        switch (token) {
            case VALUE_STRING:
                return "a string";
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "a number";
            case VALUE_TRUE:
            case VALUE_FALSE:
                return "a boolean";
            case VALUE_NULL:
                return "null";
            case START_OBJECT:
                return "an object";
            case START_ARRAY:
                return "an array";
            default:
                return token.asString() == null ? token.name() : token.asString();
        }
    }

    @Override
    public String toString() {
        List<String> labels = new ArrayList<>(paths.size());
        paths.forEach(p -> labels.add(p.label()));
        return String.join(", ", labels);
    }

    /** One pass over one body. Recursion follows the paths only, so its depth is the longest path's length. */
    private final class Pass {
        private final JsonParser parser;
        private final Visitor visitor;
        private final boolean[] settled = new boolean[paths.size()];

        Pass(JsonParser parser, Visitor visitor) {
            this.parser = parser;
            this.visitor = visitor;
        }

        /**
         * The parser is on the first token of a value that the first {@code depth} segments of every path in
         * {@code alive} lead to. Settles all of them unless the visitor stops the pass.
         *
         * @return true when the visitor stopped the pass
         */
        boolean walk(int[] alive, int depth) throws IOException {
            // Paths never lie inside one another, so a path that ends here is the only one here.
            if (alive.length == 1 && paths.get(alive[0]).length() == depth) {
                settled[alive[0]] = true;
                return visitor.value(alive[0], parser);
            }
            JsonToken token = parser.currentToken();
            if (token == JsonToken.START_OBJECT) {
                for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
                    int[] next = byName(alive, depth, parser.currentName());
                    parser.nextToken();
                    if (next == null) {
                        parser.skipChildren();
                    } else if (walk(next, depth + 1)) {
                        return true;
                    }
                }
                return absent(alive, depth);
            }
            if (token == JsonToken.START_ARRAY) {
                if (notIndexes(alive, depth)) {
                    return true;
                }
                int index = 0;
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY && t != null; t = parser.nextToken()) {
                    int[] next = byIndex(alive, depth, index++);
                    if (next == null) {
                        parser.skipChildren();
                    } else if (walk(next, depth + 1)) {
                        return true;
                    }
                }
                return absent(alive, depth);
            }
            // A scalar where the paths need an object or an array.
            for (int i : alive) {
                Path path = paths.get(i);
                String need = path.indexes()[depth] >= 0 ? "an object or array" : "an object";
                if (settle(i, path.prefixes()[depth] + " is " + kind(token) + ", not " + need)) {
                    return true;
                }
            }
            return false;
        }

        private int[] byName(int[] alive, int depth, String name) {
            int[] out = null;
            int n = 0;
            for (int i : alive) {
                if (!settled[i] && paths.get(i).names()[depth].equals(name)) {
                    out = out == null ? new int[alive.length] : out;
                    out[n++] = i;
                }
            }
            return out == null || n == out.length ? out : Arrays.copyOf(out, n);
        }

        private int[] byIndex(int[] alive, int depth, int index) {
            int[] out = null;
            int n = 0;
            for (int i : alive) {
                if (!settled[i] && paths.get(i).indexes()[depth] == index) {
                    out = out == null ? new int[alive.length] : out;
                    out[n++] = i;
                }
            }
            return out == null || n == out.length ? out : Arrays.copyOf(out, n);
        }

        /** Settles the paths that need a field name where there is an array. True when the visitor stopped. */
        private boolean notIndexes(int[] alive, int depth) {
            for (int i : alive) {
                Path path = paths.get(i);
                if (path.indexes()[depth] < 0 && settle(i, path.prefixes()[depth] + " is an array, not an object")) {
                    return true;
                }
            }
            return false;
        }

        /** Settles the paths whose next segment was not in the object or array just read. */
        private boolean absent(int[] alive, int depth) {
            for (int i : alive) {
                Path path = paths.get(i);
                if (!settled[i] && settle(i, depth + 1 == path.length() ? null
                        : "there is no " + path.prefixes()[depth + 1])) {
                    return true;
                }
            }
            return false;
        }

        private boolean settle(int path, String why) {
            if (settled[path]) {
                return false;
            }
            settled[path] = true;
            return visitor.missing(path, why);
        }
    }
}
