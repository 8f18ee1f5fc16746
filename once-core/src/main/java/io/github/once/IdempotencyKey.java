package io.github.once;

import io.github.once.internal.Digests;

import java.util.Objects;

/**
 * The identity of one unit of work: a namespace (a message type or a consumer, so that keys of different
 * kinds never collide) and an id (the message ID or a business key such as {@code payment:42}).
 *
 * <p>Any non-empty id is accepted. Ids that could break a store's key format or column width are stored as a
 * digest: see {@link #storageId()}.
 *
 * <p>A key may also name one step of a message's work ({@link #forStep(String)}): the same namespace and id,
 * plus the step's name. A step's key never equals, and is never stored as, a message's key.
 *
 * @param step the step's name for a step's key, {@code null} for a message's key
 */
public record IdempotencyKey(String namespace, String id, String step) {

    /** Longest id, in UTF-8 bytes, that is stored as it is. */
    public static final int MAX_RAW_ID_BYTES = 200;
    /** Longest namespace, in characters. */
    public static final int MAX_NAMESPACE_LENGTH = 64;
    /** Prefix of a stored id that is a digest. Raw ids that start with it are digested too, so none can pose as one. */
    public static final String DIGEST_PREFIX = "sha256:";
    /**
     * What separates a message's stored id from a step's name in a step's stored id. Raw ids that contain it are
     * digested, so no message's stored id can contain it.
     */
    public static final String STEP_MARKER = "#step:";
    /** Longest step name, in UTF-8 bytes, that is stored as it is. */
    public static final int MAX_RAW_STEP_BYTES = 64;

    public IdempotencyKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(id, "id");
        if (!validNamespace(namespace)) {
            throw new IllegalArgumentException("namespace must be 1 to " + MAX_NAMESPACE_LENGTH
                    + " characters of [A-Za-z0-9._-], starting with a letter or digit, but was '" + namespace + "'");
        }
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty (namespace '" + namespace + "')");
        }
        if (step != null && step.isEmpty()) {
            throw new IllegalArgumentException("a step's name must not be empty (key " + namespace + "/" + id + ")");
        }
    }

    /** [A-Za-z0-9][A-Za-z0-9._-]*, 1 to 64 characters; by hand, since every key of every delivery passes here. */
    private static boolean validNamespace(String namespace) {
        int n = namespace.length();
        if (n == 0 || n > MAX_NAMESPACE_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = namespace.charAt(i);
            boolean alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) {
                return false;
            }
        }
        return true;
    }

    /** A message's key. */
    public IdempotencyKey(String namespace, String id) {
        this(namespace, id, null);
    }

    public static IdempotencyKey of(String namespace, String id) {
        return new IdempotencyKey(namespace, id);
    }

    /**
     * The key of one step of this message's work: the same namespace and id, plus {@code name}. It is stored as
     * {@code <this key's stored id>#step:<name>} (see {@link #storageId()}).
     *
     * @throws IllegalStateException when this is already a step's key (steps do not nest)
     */
    public IdempotencyKey forStep(String name) {
        if (step != null) {
            throw new IllegalStateException("steps do not nest: " + this + " is already a step's key");
        }
        return new IdempotencyKey(namespace, id, Objects.requireNonNull(name, "name"));
    }

    /** Whether this is a step's key ({@link #forStep(String)}). */
    public boolean isStep() {
        return step != null;
    }

    /** The message's key: this key without its step. */
    public IdempotencyKey message() {
        return step == null ? this : new IdempotencyKey(namespace, id);
    }

    /**
     * The id as a store keeps it: the id itself when it is well-formed text of at most {@value #MAX_RAW_ID_BYTES}
     * UTF-8 bytes with no control characters; otherwise {@code sha256:} and the hex digest of its UTF-16 code
     * units (so lone surrogates stay distinct). Two different ids never map to the same stored id: a raw id
     * cannot start with the digest prefix, and distinct digests would need a SHA-256 collision. An id that
     * contains {@value #STEP_MARKER} is digested too.
     *
     * <p>A step's key is stored as {@code <message part>#step:<name part>}: the message part is the message's
     * stored id (or, where the whole would pass {@value #MAX_RAW_ID_BYTES} bytes, the digest of its id), the
     * name part the name itself when it is well-formed text of at most {@value #MAX_RAW_STEP_BYTES} bytes that
     * does not start with the digest prefix, else its digest. So a step's stored id always contains the marker
     * and a message's never does: the two cannot collide, by construction. The first marker splits a step's
     * stored id into its two parts, each of which maps back to one id and one name.
     */
    public String storageId() {
        if (step != null) {
            return stepStorageId();
        }
        return storedRaw(id) ? id : digest(id);
    }

    private String stepStorageId() {
        String name = storedRaw(step, MAX_RAW_STEP_BYTES) ? step : digest(step);
        String message = storedRaw(id) ? id : digest(id);
        if (wellFormedUtf8Length(message) + STEP_MARKER.length() + wellFormedUtf8Length(name) > MAX_RAW_ID_BYTES) {
            message = digest(id);
        }
        return message + STEP_MARKER + name;
    }

    private static String digest(String text) {
        return DIGEST_PREFIX + Digests.sha256Hex(codeUnits(text));
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

    /** Whether {@link #storageId()} holds a digest rather than the id (or step name) itself. */
    public boolean isDigested() {
        return step == null ? !storedRaw(id) : !storageId().equals(id + STEP_MARKER + step);
    }

    private static boolean storedRaw(String id) {
        return !id.contains(STEP_MARKER) && storedRaw(id, MAX_RAW_ID_BYTES);
    }

    private static boolean storedRaw(String id, int maxBytes) {
        if (id.startsWith(DIGEST_PREFIX) || id.length() > maxBytes) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return false;
            }
        }
        int bytes = wellFormedUtf8Length(id);
        return bytes >= 0 && bytes <= maxBytes;
    }

    /**
     * The UTF-8 length of {@code text}, or -1 when it holds a lone surrogate (not valid text). Counted by hand: a
     * key's stored form is decided on every store call, and a charset encoder per call showed in profiles.
     */
    static int wellFormedUtf8Length(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return -1;
                }
                bytes += 4;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return -1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    @Override
    public String toString() {
        if (step != null) {
            return namespace + "/" + storageId();
        }
        return namespace + "/" + (isDigested() ? storageId() : id);
    }
}
