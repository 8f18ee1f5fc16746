package io.github.once.chaos;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} and {@code --flag} arguments of the harness's processes. */
final class Args {

    private final Map<String, String> values;

    private Args(Map<String, String> values) {
        this.values = values;
    }

    static Args parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                values.put("", a);
                continue;
            }
            boolean hasValue = i + 1 < args.length && !args[i + 1].startsWith("--");
            values.put(a.substring(2), hasValue ? args[++i] : "true");
        }
        return new Args(values);
    }

    String get(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return v;
    }

    String get(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    long getLong(String name, long otherwise) {
        return values.containsKey(name) ? Long.parseLong(values.get(name)) : otherwise;
    }

    int getInt(String name, int otherwise) {
        return (int) getLong(name, otherwise);
    }

    boolean flag(String name) {
        return Boolean.parseBoolean(values.getOrDefault(name, "false"));
    }

    /** The first argument that is not an option (the size, for the harness). */
    String positional(String otherwise) {
        return values.getOrDefault("", otherwise);
    }
}
