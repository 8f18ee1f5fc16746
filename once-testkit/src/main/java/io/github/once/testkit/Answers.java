package io.github.once.testkit;

import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimResult;

import java.nio.charset.StandardCharsets;

/**
 * Store answers as text without what differs between two runs of the same calls (namespace, times, tokens), so a
 * test can compare two ways of asking: a batch with single calls in order, an asynchronous call with a synchronous
 * one.
 */
public final class Answers {

    private Answers() {
    }

    /** The kind of answer, the key's id, and what the answer carries: takeovers, or the record met. */
    public static String describe(ClaimResult result) {
        if (result instanceof ClaimResult.Acquired acquired) {
            return "Acquired " + acquired.lease().key().id() + " takeovers " + acquired.takeovers();
        }
        if (result instanceof ClaimResult.Duplicate duplicate) {
            return "Duplicate " + describe(duplicate.record());
        }
        if (result instanceof ClaimResult.Conflict conflict) {
            return "Conflict " + describe(conflict.record());
        }
        return result.getClass().getSimpleName();
    }

    /** The key's id, the state, the fingerprint and the result (as UTF-8 text). */
    public static String describe(IdempotencyRecord record) {
        return record.key().id() + " " + record.state() + " " + record.fingerprint() + " "
                + (record.result() == null ? "no result" : new String(record.result(), StandardCharsets.UTF_8));
    }
}
