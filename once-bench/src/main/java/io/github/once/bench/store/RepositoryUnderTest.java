package io.github.once.bench.store;

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

    /** Removes what this rival wrote where the service does not expire it, and closes its connections. */
    @Override
    void close();
}
