package io.github.once.cli.demo;

/**
 * The storage steps of the seed's IdempotentConsumer, each a separate call as in the seed: a "processed" key
 * and a lock key, never one atomic claim.
 */
interface CheckThenLockGuard extends AutoCloseable {

    /** The seed's lock: SET key 1 NX EX 30. */
    long LOCK_SECONDS = 30;
    /** The seed's TTL of the processed mark: 24 h. */
    long PROCESSED_SECONDS = 86_400;

    /** EXISTS msg:processed:{id}. */
    boolean isProcessed(String id);

    /** SET msg:processed:{id}:lock 1 NX EX 30. */
    boolean acquireLock(String id);

    /** DEL msg:processed:{id}:lock. */
    void releaseLock(String id);

    /** SETEX msg:processed:{id} 86400 {...}, then release the lock (two more calls). */
    void markAsProcessed(String id, String result);

    @Override
    default void close() {
    }
}
