package io.github.once;

import java.nio.charset.StandardCharsets;

/**
 * Turns a handler's result into the bytes a store keeps, and back for duplicates. Never Java serialization:
 * stored bytes may come from another version of the application.
 */
public interface ResultCodec<T> {

    byte[] encode(T value);

    T decode(byte[] bytes);

    /** Bytes as they are; {@code null} is kept as no result. */
    static ResultCodec<byte[]> bytes() {
        return BuiltInCodecs.BYTES;
    }

    /** UTF-8 text; {@code null} is kept as no result. */
    static ResultCodec<String> utf8() {
        return BuiltInCodecs.UTF8;
    }

    /** No result at all: the handler's return value is ignored and duplicates decode to {@code null}. */
    static ResultCodec<Void> none() {
        return BuiltInCodecs.NONE;
    }
}

final class BuiltInCodecs {
    private BuiltInCodecs() {
    }

    static final ResultCodec<byte[]> BYTES = new ResultCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
            return value == null ? null : value.clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes == null ? null : bytes.clone();
        }
    };

    static final ResultCodec<String> UTF8 = new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
            return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }
    };

    static final ResultCodec<Void> NONE = new ResultCodec<>() {
        @Override
        public byte[] encode(Void value) {
            return null;
        }

        @Override
        public Void decode(byte[] bytes) {
            return null;
        }
    };
}
