package io.github.once.internal;

import io.github.once.IdempotencyKey;

import java.nio.ByteBuffer;
import java.util.regex.Pattern;

/**
 * Idempotency keys for external APIs (an {@code Idempotency-Key} header): {@code <namespace>:<id>:<name>} when
 * the id and the name are short and of header-safe characters, else {@code <namespace>:sha256-<hex>} over the id
 * and the name. The readable form has two colons and the digest form one, and neither namespaces, ids nor names
 * of the readable form contain a colon, so two different (key, name) pairs never share an operation key.
 */
public final class OperationKeys {

    /** Longest readable operation key; longer ones take the digest form (which is at most 136 characters). */
    public static final int MAX_READABLE_LENGTH = 200;

    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._~-]+");

    private OperationKeys() {
    }

    public static String of(IdempotencyKey key, String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("an operation's name must not be empty");
        }
        IdempotencyKey message = key.message();
        String id = message.id();
        String readable = message.namespace() + ":" + id + ":" + name;
        if (readable.length() <= MAX_READABLE_LENGTH && SAFE.matcher(id).matches() && SAFE.matcher(name).matches()) {
            return readable;
        }
        return message.namespace() + ":sha256-" + Digests.sha256Hex(lengthPrefixed(id, name));
    }

    /** Both strings' UTF-16 code units, each after its length, so that no two pairs give the same bytes. */
    private static byte[] lengthPrefixed(String id, String name) {
        ByteBuffer bytes = ByteBuffer.allocate(8 + 2 * (id.length() + name.length()));
        bytes.putInt(id.length());
        for (int i = 0; i < id.length(); i++) {
            bytes.putChar(id.charAt(i));
        }
        bytes.putInt(name.length());
        for (int i = 0; i < name.length(); i++) {
            bytes.putChar(name.charAt(i));
        }
        return bytes.array();
    }
}
