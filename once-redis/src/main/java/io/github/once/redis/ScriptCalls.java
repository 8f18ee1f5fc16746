package io.github.once.redis;

import io.github.once.StoreUnavailableException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends the store's scripts by SHA-1 (EVALSHA) and waits a bounded time for the answer on the caller's thread
 * ({@link #call}). A server that does not know a script (restarted,
 * flushed, or a new cluster node) answers NOSCRIPT; the script is then sent in full once (EVAL), which also caches
 * it there. Every failure to get an answer becomes a {@link StoreUnavailableException}: nothing is concluded
 * without a reply.
 */
final class ScriptCalls {

    private final RedisScriptingAsyncCommands<byte[], byte[]> commands;
    private final Duration timeout;
    private final long timeoutNanos;

    ScriptCalls(RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        this.commands = commands;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    /** Calls one script on one key and waits for its reply. */
    <T> T call(LuaScript script, ScriptOutputType type, byte[] key, byte[]... args) {
        return call(script, type, new byte[][] {key}, args);
    }

    /** Calls one script on {@code keys} (one slot, or a single Redis) and waits for its reply. */
    <T> T call(LuaScript script, ScriptOutputType type, byte[][] keys, byte[][] args) {
        long deadline = System.nanoTime() + timeoutNanos;
        return await(send(script, type, keys, args), deadline, script, type, keys, args);
    }

    long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /** Queues one EVALSHA without waiting; the reply is collected with {@link #await}. */
    <T> RedisFuture<T> send(LuaScript script, ScriptOutputType type, byte[][] keys, byte[][] args) {
        try {
            return commands.evalsha(script.sha1(), type, keys, args);
        } catch (RuntimeException e) {
            // Lettuce rejects commands up front when the connection is closed or its queue is full.
            throw unavailable(script, keys, e);
        }
    }

    /** Waits until {@code deadline} (System.nanoTime) for a reply sent by {@link #send}. */
    <T> T await(RedisFuture<T> future, long deadline, LuaScript script, ScriptOutputType type, byte[][] keys,
            byte[][] args) {
        try {
            return get(future, deadline, script, keys);
        } catch (RedisNoScriptException e) {
            RedisFuture<T> retry;
            try {
                retry = commands.eval(script.body(), type, keys, args);
            } catch (RuntimeException failure) {
                throw unavailable(script, keys, failure);
            }
            try {
                return get(retry, deadline, script, keys);
            } catch (RedisNoScriptException impossible) {
                throw unavailable(script, keys, impossible);
            }
        }
    }

    private <T> T get(RedisFuture<T> future, long deadline, LuaScript script, byte[][] keys) {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException("Redis did not answer " + script + " on " + describe(keys)
                    + " within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            throw new StoreUnavailableException("interrupted while waiting for Redis (" + script + " on "
                    + describe(keys) + ")", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisNoScriptException noScript) {
                throw noScript;
            }
            throw unavailable(script, keys, e.getCause() == null ? e : e.getCause());
        } catch (RuntimeException e) {
            // A cancelled future, or a failure raised while waiting.
            throw unavailable(script, keys, e);
        }
    }

    private static StoreUnavailableException unavailable(LuaScript script, byte[][] keys, Throwable cause) {
        return new StoreUnavailableException("Redis failed " + script + " on " + describe(keys) + ": " + cause, cause);
    }

    /** The key, or the first key and how many more (a batch may hold hundreds). */
    private static String describe(byte[][] keys) {
        String first = new String(keys[0], StandardCharsets.UTF_8);
        return keys.length == 1 ? first : first + " and " + (keys.length - 1) + " more keys";
    }
}
