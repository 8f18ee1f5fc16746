package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import java.util.Optional;

/** What the operating commands need from a store, whatever holds the records. */
interface OpsStore extends AutoCloseable {

    /** Where the records are, for messages (never with a password). */
    String describe();

    Optional<IdempotencyRecord> find(IdempotencyKey key);

    /** Counts by state, the oldest claim still in progress, and the expired backlog. */
    StoreStats stats(String namespace);

    /**
     * Deletes (or with {@code dryRun} only counts) expired records, at most {@code max}.
     */
    PurgeReport purge(boolean dryRun, int max);

    @Override
    void close();
}
