package io.github.once.redis.internal;

import io.github.once.StoreUnavailableException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
public final class ScriptCalls {

    /** Asked at each call: it connects on first use when Redis was down when the store was built. */
    private final RedisConnections connections;
    /** Keys per script call of a batch on a single Redis: bounds how long one call keeps Redis from others. */
    public static final int BATCH_CHUNK = 200;

    private final boolean cluster;
    private final Duration timeout;
    private final long timeoutNanos;

    public ScriptCalls(RedisConnections connections, Duration timeout) {
        this.connections = connections;
        this.cluster = connections.cluster();
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
    }

    /** Calls one script on one key and waits for its reply. */
    public <T> T call(LuaScript script, ScriptOutputType type, byte[] key, byte[]... args) {
        return call(script, type, new byte[][] {key}, args);
    }

    /** Calls one script on {@code keys} (one slot, or a single Redis) and waits for its reply. */
    public <T> T call(LuaScript script, ScriptOutputType type, byte[][] keys, byte[][] args) {
        long deadline = System.nanoTime() + timeoutNanos;
        return await(send(script, type, keys, args), deadline, script, type, keys, args);
    }

    public long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /** Queues one EVALSHA without waiting; the reply is collected with {@link #await}. */
    public <T> RedisFuture<T> send(LuaScript script, ScriptOutputType type, byte[][] keys, byte[][] args) {
        try {
            return connections.commands().evalsha(script.sha1(), type, keys, args);
        } catch (StoreUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            // Lettuce rejects commands up front when the connection is closed or its queue is full.
            throw unavailable(script, keys, e);
        }
    }

    /** Waits until {@code deadline} (System.nanoTime) for a reply sent by {@link #send}. */
    public <T> T await(RedisFuture<T> future, long deadline, LuaScript script, ScriptOutputType type, byte[][] keys,
            byte[][] args) {
        try {
            return get(future, deadline, script, keys);
        } catch (RedisNoScriptException e) {
            RedisFuture<T> retry;
            try {
                retry = connections.commands().eval(script.body(), type, keys, args);
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

    /**
     * Runs {@code script} on the keys {@value #BATCH_CHUNK} at a time and returns one reply per key. A chunk is
     * sent once the previous one answered: Redis serves other clients between chunks, and a chunk retried after
     * {@code NOSCRIPT} cannot run after a later one, so a key repeated across chunks keeps its order.
     */
    private List<Object> inChunks(LuaScript script, byte[][] keyNames, byte[][][] args) {
        int n = keyNames.length;
        List<Object> replies = new ArrayList<>(n);
        for (int from = 0; from < n; from += BATCH_CHUNK) {
            int to = Math.min(n, from + BATCH_CHUNK);
            List<Object> reply = call(script, ScriptOutputType.MULTI, Arrays.copyOfRange(keyNames, from, to),
                    chunkArgs(script, args, from, to));
            replies.addAll(Replies.batch(reply, to - from));
        }
        return replies;
    }

    /** The arguments of keys {@code from} to {@code to}, one key's after another's, as a batch script takes them. */
    private static byte[][] chunkArgs(LuaScript script, byte[][][] args, int from, int to) {
        int perKey = script.argsPerKey();
        byte[][] chunkArgs = new byte[(to - from) * perKey][];
        for (int i = from; i < to; i++) {
            System.arraycopy(args[i], 0, chunkArgs, (i - from) * perKey, perKey);
        }
        return chunkArgs;
    }

    /**
     * Runs a single-key script on every key, one reply per key in order: on a single Redis its batch form
     * {@value #BATCH_CHUNK} keys per call, on a cluster one call per key, all sent before any reply is read. One
     * round trip per chunk either way.
     */
    public List<Object> onEachKey(LuaScript single, LuaScript batch, ScriptOutputType type, byte[][] keyNames,
            byte[][][] args) {
        return cluster ? eachKey(single, type, keyNames, args) : inChunks(batch, keyNames, args);
    }

    /** Sends one single-key call per key before reading any reply (a cluster: the keys sit in different slots). */
    private List<Object> eachKey(LuaScript script, ScriptOutputType type, byte[][] keyNames, byte[][][] args) {
        int n = keyNames.length;
        List<RedisFuture<Object>> futures = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            futures.add(send(script, type, new byte[][] {keyNames[i]}, args[i]));
        }
        long deadline = deadlineFromNow();
        List<Object> replies = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // A NOSCRIPT reply is retried alone, in order: the node lost its script cache, so the calls after it
            // on that node failed alike and order among repeated keys is kept.
            replies.add(await(futures.get(i), deadline, script, type, new byte[][] {keyNames[i]}, args[i]));
        }
        return replies;
    }
}
