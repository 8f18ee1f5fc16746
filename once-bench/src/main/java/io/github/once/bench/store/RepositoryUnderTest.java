package io.github.once.bench.store;

import java.util.List;

/**
 * The one operation every rival is measured on: take a key for processing and record the work as done, the way
 * the rival's own idempotent consumer does it around a handler. Once claims with a lease and completes with a
 * fencing token (two store calls); Camel adds then confirms; Spring Integration's selector puts the key if
 * absent (one call, no in-progress state).
 */
public interface RepositoryUnderTest extends AutoCloseable {

    /**
     * @return true when the key was new and is now recorded as done; false when it was already done (a
     *         duplicate)
     */
    boolean claimAndComplete(String key);

    /**
     * The same for a batch of keys, as a consumer would do for the deliveries it has in hand. Neither Camel's
     * repositories nor Spring Integration's metadata stores have a batch call, so by default this is one
     * {@link #claimAndComplete} per key; Once claims the batch with one {@code claimAll} and records it with one
     * {@code completeAll}.
     *
     * @return how many of the keys were new (and are now recorded as done)
     */
    default int claimAndCompleteAll(List<String> keys) {
        int fresh = 0;
        for (String key : keys) {
            if (claimAndComplete(key)) {
                fresh++;
            }
        }
        return fresh;
    }

    /** Removes what this rival wrote where the service does not expire it, and closes its connections. */
    @Override
    void close();
}
