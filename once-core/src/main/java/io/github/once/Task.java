package io.github.once;

import java.util.Objects;

/** One unit of work for an {@link Idempotency} executor. */
public record Task<T>(IdempotencyKey key, byte[] payload, ResultCodec<T> codec, Handler<T> handler) {
    public Task {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(handler, "handler");
        payload = payload == null ? new byte[0] : payload;
    }
}
