package io.github.once.redis.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Operators' view of a {@link RedisIdempotencyStore}'s records, read by {@code inspect.lua} next to the store's
 * other scripts. Counts and listings SCAN the key prefix (every node of a cluster) in pages and classify each page
 * with one script call per chunk (one pipelined call per key on a cluster): they read every record of the prefix,
 * so they are for operators, not for every message. A claim's time is its fencing token (server microseconds).
 * A release leaves the released token in the record, so released and lapsed claims are told apart. Redis drops
 * each record at its expiry: there is never anything to purge.
 */
public final class RedisStoreInspector implements StoreInspector {

    private static final int SCAN_PAGE = 1000;
    private static final byte[][] FULL = {{'1'}};
    private static final byte[][] BRIEF = {{'0'}};

    private final RedisConnections connections;
    private final ScriptCalls calls;
    private final KeyLayout keys;
    private final Duration timeout;

    public RedisStoreInspector(RedisConnections connections, ScriptCalls calls, KeyLayout keys, Duration timeout) {
        this.connections = connections;
        this.calls = calls;
        this.keys = keys;
        this.timeout = timeout;
    }

    @Override
    public boolean tellsReleasedFromLapsed() {
        return true;
    }

    @Override
    public boolean expiresRecordsItself() {
        return true;
    }

    @Override
    public Optional<StoreInspector.Inspected> inspect(IdempotencyKey key) {
        byte[] name = keys.key(key);
        List<Object> reply = calls.call(LuaScript.INSPECT, ScriptOutputType.MULTI, name, FULL[0]);
        Standing s = Standing.of(reply);
        if (s == null || s.standing == null) {
            return Optional.empty();
        }
        byte[] fingerprint = bytes(reply, 5);
        IdempotencyRecord record = new IdempotencyRecord(key, state(reply), s.token, s.lease,
                fingerprint == null ? null : new String(fingerprint, StandardCharsets.UTF_8), bytes(reply, 6),
                s.expiry);
        return Optional.of(new StoreInspector.Inspected(record, s.standing, claimedAt(s.token),
                new String(name, StandardCharsets.UTF_8)));
    }

    @Override
    public StoreInspector.Counts count(String namespace) {
        Instant now = serverTime();
        long[] counts = new long[StoreInspector.Standing.values().length];
        long[] expired = {0};
        scan(namespace, (name, s) -> {
            if (s.standing == null) {
                expired[0]++;
            } else {
                counts[s.standing.ordinal()]++;
            }
        });
        return new StoreInspector.Counts(now, counts[StoreInspector.Standing.IN_PROGRESS.ordinal()],
                counts[StoreInspector.Standing.RELEASED.ordinal()], counts[StoreInspector.Standing.LAPSED.ordinal()],
                counts[StoreInspector.Standing.COMPLETED.ordinal()], expired[0]);
    }

    @Override
    public List<StoreInspector.Summary> oldestInProgress(String namespace, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        Comparator<StoreInspector.Summary> oldestFirst = Comparator.comparingLong(StoreInspector.Summary::token);
        // The newest of the kept ones on top, so it goes first when an older one turns up.
        PriorityQueue<StoreInspector.Summary> kept = new PriorityQueue<>(oldestFirst.reversed());
        scan(namespace, (name, s) -> {
            String[] parts = keys.parse(name);
            if (parts == null || (s.standing != StoreInspector.Standing.IN_PROGRESS && s.standing != StoreInspector.Standing.LAPSED)) {
                return;
            }
            kept.add(new StoreInspector.Summary(parts[0], parts[1], s.standing, s.token, claimedAt(s.token), s.lease,
                    s.expiry));
            if (kept.size() > limit) {
                kept.poll();
            }
        });
        List<StoreInspector.Summary> oldest = new ArrayList<>(kept);
        oldest.sort(oldestFirst);
        return List.copyOf(oldest);
    }

    @Override
    public int purgeExpired(String namespace, int maxRecords) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        return 0;
    }

    /**
     * SCANs the namespace's keys and deletes them, one {@code DEL} per key (on a cluster a namespace's keys sit
     * in many slots), all sent before any reply is read; at most {@code maxRecords}.
     */
    @Override
    public int deleteNamespace(String namespace, int maxRecords) {
        Objects.requireNonNull(namespace, "namespace");
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        ScanArgs match = ScanArgs.Builder.matches(keys.pattern(namespace)).limit(SCAN_PAGE);
        ScanCursor cursor = ScanCursor.INITIAL;
        int deleted = 0;
        do {
            KeyScanCursor<byte[]> page = await(connections.commands().scan(cursor, match), "SCAN");
            List<RedisFuture<Long>> sent = new ArrayList<>();
            for (byte[] name : page.getKeys()) {
                if (deleted + sent.size() < maxRecords) {
                    sent.add(connections.commands().del(name));
                }
            }
            for (RedisFuture<Long> reply : sent) {
                deleted += await(reply, "DEL").intValue();
            }
            cursor = page;
        } while (!cursor.isFinished() && deleted < maxRecords);
        return deleted;
    }

    private interface Visitor {
        void visit(byte[] name, Standing standing);
    }

    /** Every record of the namespace (or of the prefix), page by page; keys gone meanwhile are skipped. */
    private void scan(String namespace, Visitor visitor) {
        ScanArgs match = ScanArgs.Builder.matches(keys.pattern(namespace)).limit(SCAN_PAGE);
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<byte[]> page = await(connections.commands().scan(cursor, match), "SCAN");
            List<byte[]> names = page.getKeys();
            if (!names.isEmpty()) {
                byte[][] keyNames = names.toArray(new byte[0][]);
                byte[][][] args = new byte[keyNames.length][][];
                Arrays.fill(args, BRIEF);
                List<Object> replies = calls.onEachKey(LuaScript.INSPECT, LuaScript.INSPECT_ALL,
                        ScriptOutputType.MULTI, keyNames, args);
                for (int i = 0; i < keyNames.length; i++) {
                    Standing s = Standing.of(Replies.list(replies.get(i)));
                    if (s != null) {
                        visitor.visit(keyNames[i], s);
                    }
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
    }

    private Instant serverTime() {
        List<byte[]> time = await(connections.commands().time(), "TIME");
        long seconds = Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII));
        long micros = Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII));
        return Instant.ofEpochSecond(seconds).plus(micros, ChronoUnit.MICROS);
    }

    private <T> T await(RedisFuture<T> future, String command) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while waiting for Redis (" + command + ")", e);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException("Redis did not answer " + command + " within " + timeout, e);
        } catch (ExecutionException e) {
            throw new StoreUnavailableException("Redis failed " + command + ": " + e.getCause(), e.getCause());
        }
    }

    private static Instant claimedAt(long token) {
        return Instant.EPOCH.plus(token, ChronoUnit.MICROS);
    }

    /** The head of an inspect reply; {@code standing} is null for a record past its expiry. */
    private record Standing(StoreInspector.Standing standing, long token, Instant lease, Instant expiry) {
        static Standing of(List<Object> reply) {
            if (reply == null || reply.isEmpty()) {
                return null;
            }
            byte[] code = bytes(reply, 0);
            if (code == null || code.length != 1 || reply.size() < 4) {
                throw malformed(reply);
            }
            StoreInspector.Standing standing = switch (code[0]) {
                case 'P' -> StoreInspector.Standing.IN_PROGRESS;
                case 'R' -> StoreInspector.Standing.RELEASED;
                case 'L' -> StoreInspector.Standing.LAPSED;
                case 'C' -> StoreInspector.Standing.COMPLETED;
                case 'E' -> null;
                default -> throw malformed(reply);
            };
            return new Standing(standing, number(reply, 1), Instant.ofEpochMilli(number(reply, 2)),
                    Instant.ofEpochMilli(number(reply, 3)));
        }
    }

    private static RecordState state(List<Object> reply) {
        byte[] state = bytes(reply, 4);
        return state != null && state.length == 1 && state[0] == 'C' ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
    }

    private static long number(List<Object> reply, int index) {
        if (reply.get(index) instanceof Long n) {
            return n;
        }
        throw malformed(reply);
    }

    /** A bulk string, or null for an absent field (false from Lua). */
    private static byte[] bytes(List<Object> reply, int index) {
        Object value = index < reply.size() ? reply.get(index) : null;
        return value instanceof byte[] b ? b : null;
    }

    private static OnceException malformed(List<Object> reply) {
        return new OnceException("unexpected inspect reply " + reply + " from Redis (is another program writing "
                + "to this key prefix?)");
    }
}
