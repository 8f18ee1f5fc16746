package io.github.once.redis.internal;

import io.github.once.IdempotencyKey;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Redis key names: {@code <prefix>{<namespace>:<storageId>}}. Each record is one key, so every single operation
 * touches one key and Redis Cluster never sees a cross-slot call (batches touch several keys only on a single Redis). The braces make the cluster slot follow the namespace and
 * id rather than the shared prefix. Key names are injective: the prefix is fixed, a namespace has no colon, and
 * {@link IdempotencyKey#storageId()} is unique per id; an id holding braces can only move its key to another slot,
 * never onto another record's key.
 */
public final class KeyLayout {

    static final int MAX_PREFIX_LENGTH = 64;
    private static final Pattern PREFIX = Pattern.compile("[\\x21-\\x7a|~]*");

    private final String prefix;

    public KeyLayout(String prefix) {
        this.prefix = validPrefix(prefix);
    }

    /**
     * Checks a key prefix: at most {@value #MAX_PREFIX_LENGTH} printable ASCII characters, no spaces and no braces
     * (a brace would change which part of the key picks the cluster slot). It may be empty.
     */
    public static String validPrefix(String prefix) {
        if (prefix == null || prefix.length() > MAX_PREFIX_LENGTH || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("keyPrefix must be at most " + MAX_PREFIX_LENGTH
                    + " printable ASCII characters without spaces or braces, but was "
                    + (prefix == null ? "null" : "'" + prefix + "'"));
        }
        return prefix;
    }

    public String prefix() {
        return prefix;
    }

    /**
     * A SCAN MATCH pattern for every record of {@code namespace}, or of every namespace when it is null; glob
     * characters of the prefix are escaped.
     */
    byte[] pattern(String namespace) {
        StringBuilder glob = new StringBuilder();
        for (char c : prefix.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                glob.append('\\');
            }
            glob.append(c);
        }
        glob.append('{');
        if (namespace != null) {
            // Namespaces are [A-Za-z0-9._-]: nothing to escape, and the colon ends the name exactly.
            glob.append(namespace).append(':');
        }
        return glob.append('*').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The namespace and stored id a key name holds, or null when it is not a record's key name. */
    String[] parse(byte[] name) {
        String text = new String(name, StandardCharsets.UTF_8);
        if (!text.startsWith(prefix + "{") || !text.endsWith("}")) {
            return null;
        }
        String inner = text.substring(prefix.length() + 1, text.length() - 1);
        int colon = inner.indexOf(':');
        return colon <= 0 ? null : new String[] {inner.substring(0, colon), inner.substring(colon + 1)};
    }

    public byte[] key(IdempotencyKey key) {
        String storageId = key.storageId();
        StringBuilder name = new StringBuilder(prefix.length() + key.namespace().length() + storageId.length() + 3);
        name.append(prefix).append('{').append(key.namespace()).append(':').append(storageId).append('}');
        return name.toString().getBytes(StandardCharsets.UTF_8);
    }
}
