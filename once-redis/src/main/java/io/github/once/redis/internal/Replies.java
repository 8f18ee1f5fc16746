package io.github.once.redis.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Turns the scripts' replies into SPI values. The reply layouts are documented at the top of each script. */
public final class Replies {
    private Replies() {
    }

    public static ClaimResult claim(IdempotencyKey key, List<Object> reply) {
        switch (code(reply)) {
            case 'A':
                return new ClaimResult.Acquired(new Lease(key, number(reply, 1), millis(reply, 2)),
                        Math.toIntExact(number(reply, 3)));
            case 'B':
                return new ClaimResult.Busy(millis(reply, 1));
            case 'D':
                return new ClaimResult.Duplicate(record(key, reply, 1));
            case 'X':
                return new ClaimResult.Conflict(record(key, reply, 1));
            default:
                throw malformed("claim", reply);
        }
    }

    /** A batch script's reply: one element per key, in order. */
    public static List<Object> batch(List<Object> reply, int keys) {
        if (reply == null || reply.size() != keys) {
            throw new OnceException("unexpected Redis batch script reply of " + (reply == null ? 0 : reply.size())
                    + " elements for " + keys + " keys");
        }
        return reply;
    }

    /** One key's claim reply out of a batch. */
    @SuppressWarnings("unchecked")
    public static List<Object> list(Object reply) {
        if (reply instanceof List<?> list) {
            return (List<Object>) list;
        }
        throw new OnceException("unexpected claim reply " + reply + " from Redis");
    }

    /** A complete or release reply: 1 done, 0 refused. */
    public static boolean done(Object reply) {
        return reply instanceof Long number && number == 1L;
    }

    public static Optional<IdempotencyRecord> find(IdempotencyKey key, List<Object> reply) {
        return reply == null || reply.isEmpty() ? Optional.empty() : Optional.of(record(key, reply, 0));
    }

    /** A record laid out as state, token, lease, fingerprint, result, expiry from {@code from} on. */
    private static IdempotencyRecord record(IdempotencyKey key, List<Object> reply, int from) {
        if (reply.size() < from + 6) {
            throw malformed("record", reply);
        }
        byte[] fingerprint = bytes(reply, from + 3);
        return new IdempotencyRecord(key, state(reply, from), number(reply, from + 1), millis(reply, from + 2),
                fingerprint == null ? null : new String(fingerprint, StandardCharsets.UTF_8),
                bytes(reply, from + 4), millis(reply, from + 5));
    }

    private static RecordState state(List<Object> reply, int index) {
        byte[] state = bytes(reply, index);
        if (state != null && state.length == 1 && state[0] == 'C') {
            return RecordState.COMPLETED;
        }
        if (state != null && state.length == 1 && state[0] == 'P') {
            return RecordState.IN_PROGRESS;
        }
        throw malformed("record state", reply);
    }

    private static char code(List<Object> reply) {
        byte[] code = reply == null || reply.isEmpty() ? null : bytes(reply, 0);
        return code == null || code.length != 1 ? '?' : (char) code[0];
    }

    private static long number(List<Object> reply, int index) {
        Object value = index < reply.size() ? reply.get(index) : null;
        if (value instanceof Long number) {
            return number;
        }
        throw malformed("number at " + index, reply);
    }

    private static Instant millis(List<Object> reply, int index) {
        return Instant.ofEpochMilli(number(reply, index));
    }

    /** A bulk string, or null for an absent field (nil in RESP2, false in RESP3). */
    private static byte[] bytes(List<Object> reply, int index) {
        Object value = reply.get(index);
        if (value == null || value instanceof Boolean) {
            return null;
        }
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        throw malformed("bulk string at " + index, reply);
    }

    private static OnceException malformed(String what, List<Object> reply) {
        return new OnceException("unexpected " + what + " in Redis script reply " + reply
                + " (is another program writing to this key prefix?)");
    }
}
