package io.github.once;

import io.github.once.internal.Digests;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.CharBuffer;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The identity of one unit of work: a namespace (a message type or a consumer, so that keys of different
 * kinds never collide) and an id (the message ID or a business key such as {@code payment:42}).
 *
 * <p>Any non-empty id is accepted. Ids that could break a store's key format or column width are stored as a
 * digest: see {@link #storageId()}.
 */
public record IdempotencyKey(String namespace, String id) {

    /** Longest id, in UTF-8 bytes, that is stored as it is. */
    public static final int MAX_RAW_ID_BYTES = 200;
    /** Longest namespace, in characters. */
    public static final int MAX_NAMESPACE_LENGTH = 64;
    /** Prefix of a stored id that is a digest. Raw ids that start with it are digested too, so none can pose as one. */
    public static final String DIGEST_PREFIX = "sha256:";

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    public IdempotencyKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(id, "id");
        if (namespace.isEmpty() || namespace.length() > MAX_NAMESPACE_LENGTH || !NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace must be 1 to " + MAX_NAMESPACE_LENGTH
                    + " characters of [A-Za-z0-9._-], starting with a letter or digit, but was '" + namespace + "'");
        }
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty (namespace '" + namespace + "')");
        }
    }

    public static IdempotencyKey of(String namespace, String id) {
        return new IdempotencyKey(namespace, id);
    }

    /**
     * The id as a store keeps it: the id itself when it is well-formed text of at most {@value #MAX_RAW_ID_BYTES}
     * UTF-8 bytes with no control characters; otherwise {@code sha256:} and the hex digest of its UTF-16 code
     * units (so lone surrogates stay distinct). Two different ids never map to the same stored id: a raw id
     * cannot start with the digest prefix, and distinct digests would need a SHA-256 collision.
     */
    public String storageId() {
        return storedRaw(id) ? id : DIGEST_PREFIX + Digests.sha256Hex(codeUnits(id));
    }

    /** The UTF-16 code units as bytes, by hand: a charset encoder would replace lone surrogates and merge ids. */
    private static byte[] codeUnits(String id) {
        byte[] bytes = new byte[id.length() * 2];
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            bytes[2 * i] = (byte) (c >>> 8);
            bytes[2 * i + 1] = (byte) c;
        }
        return bytes;
    }

    /** Whether {@link #storageId()} is a digest rather than the id itself. */
    public boolean isDigested() {
        return !storedRaw(id);
    }

    private static boolean storedRaw(String id) {
        if (id.startsWith(DIGEST_PREFIX) || id.length() > MAX_RAW_ID_BYTES) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return false;
            }
        }
        try {
            int bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(id))
                    .remaining();
            return bytes <= MAX_RAW_ID_BYTES;
        } catch (CharacterCodingException e) {
            return false; // lone surrogate: not valid text
        }
    }

    @Override
    public String toString() {
        return namespace + "/" + (isDigested() ? storageId() : id);
    }
}
