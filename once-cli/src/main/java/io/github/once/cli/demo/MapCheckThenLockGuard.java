package io.github.once.cli.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The seed's Redis keys re-created in memory: two separate maps with expiry, each call atomic on its own key as
 * a Redis command is, and nothing atomic across the two.
 */
final class MapCheckThenLockGuard implements CheckThenLockGuard {
    private final Map<String, Long> processed = new ConcurrentHashMap<>();
    private final Map<String, Lock> locks = new ConcurrentHashMap<>();

    private record Lock(long until) {
    }

    @Override
    public boolean isProcessed(String id) {
        Long until = processed.get(id);
        return until != null && until > now();
    }

    @Override
    public boolean acquireLock(String id) {
        long now = now();
        Lock mine = new Lock(now + LOCK_SECONDS * 1000);
        // SET NX EX: set only when absent or expired.
        return locks.compute(id, (k, old) -> old == null || old.until() <= now ? mine : old) == mine;
    }

    @Override
    public void releaseLock(String id) {
        locks.remove(id);
    }

    @Override
    public void markAsProcessed(String id, String result) {
        processed.put(id, now() + PROCESSED_SECONDS * 1000);
        releaseLock(id);
    }

    private static long now() {
        return System.currentTimeMillis();
    }
}
