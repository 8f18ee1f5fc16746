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
 * Sends the store's scripts by SHA-1 (EVALSHA) and waits a bounded time for the answer. A server that does not
 * know a script (restarted, flushed, or a new cluster node) answers NOSCRIPT; the script is then sent in full
 * once (EVAL), which also caches it there. Every failure to get an answer becomes a
 * {@link StoreUnavailableException}: nothing is concluded without a reply.
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

    /** Calls one script and waits for its reply. */
    <T> T call(LuaScript script, ScriptOutputType type, byte[] key, byte[]... args) {
        long deadline = System.nanoTime() + timeoutNanos;
        return await(send(commands, script, type, key, args), deadline, script, type, key, args);
    }

    long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /** Queues one EVALSHA on {@code via} without waiting; the reply is collected with {@link #await}. */
    <T> RedisFuture<T> send(RedisScriptingAsyncCommands<byte[], byte[]> via, LuaScript script, ScriptOutputType type,
            byte[] key, byte[]... args) {
        try {
            return via.evalsha(script.sha1(), type, new byte[][] {key}, args);
        } catch (RuntimeException e) {
            // Lettuce rejects commands up front when the connection is closed or its queue is full.
            throw unavailable(script, key, e);
        }
    }

    /** Waits until {@code deadline} (System.nanoTime) for a reply sent by {@link #send}. */
    <T> T await(RedisFuture<T> future, long deadline, LuaScript script, ScriptOutputType type, byte[] key,
            byte[]... args) {
        try {
            return get(future, deadline, script, key);
        } catch (RedisNoScriptException e) {
            RedisFuture<T> retry;
            try {
                retry = commands.eval(script.body(), type, new byte[][] {key}, args);
            } catch (RuntimeException failure) {
                throw unavailable(script, key, failure);
            }
            try {
                return get(retry, deadline, script, key);
            } catch (RedisNoScriptException impossible) {
                throw unavailable(script, key, impossible);
            }
        }
    }

    private <T> T get(RedisFuture<T> future, long deadline, LuaScript script, byte[] key) {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException("Redis did not answer " + script + " on " + describe(key)
                    + " within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            throw new StoreUnavailableException("interrupted while waiting for Redis (" + script + " on "
                    + describe(key) + ")", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisNoScriptException noScript) {
                throw noScript;
            }
            throw unavailable(script, key, e.getCause() == null ? e : e.getCause());
        } catch (RuntimeException e) {
            // A cancelled future, or a failure raised while waiting.
            throw unavailable(script, key, e);
        }
    }

    private static StoreUnavailableException unavailable(LuaScript script, byte[] key, Throwable cause) {
        return new StoreUnavailableException("Redis failed " + script + " on " + describe(key) + ": " + cause, cause);
    }

    private static String describe(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }
}
