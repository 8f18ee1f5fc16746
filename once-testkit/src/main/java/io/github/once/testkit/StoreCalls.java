package io.github.once.testkit;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * For tests of stores: single-key calls on a store (the SPI's calls are batches; these are batches of one, with
 * the one answer checked), and store answers as text without what differs between two runs of the same calls
 * (namespace, times, tokens), so a test can compare two ways of asking.
 */
public final class StoreCalls {

    private StoreCalls() {
    }

    /** Claims one key. */
    public static ClaimResult claim(IdempotencyStore store, ClaimRequest request) {
        return one(store.claim(List.of(request)));
    }

    /** Completes one lease; false when it is no longer current. */
    public static boolean complete(IdempotencyStore store, Lease lease, byte[] result, Duration retention) {
        return one(store.complete(List.of(new Completion(lease, result, retention))));
    }

    /** Reads one key's record. */
    public static Optional<IdempotencyRecord> find(IdempotencyStore store, IdempotencyKey key) {
        return one(store.find(List.of(key)));
    }

    private static <T> T one(List<T> answers) {
        if (answers.size() != 1) {
            throw new OnceException("the store answered " + answers.size() + " times to a call for one key");
        }
        return answers.get(0);
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
