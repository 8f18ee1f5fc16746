package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreUnavailableException;
import io.github.once.cli.CliException;
import io.github.once.redis.RedisIdempotencyStore;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Records of the Redis store: one hash per record under {@code <prefix>{<namespace>:<id>}}, with fields
 * {@code s} (P in progress, C completed), {@code t} token, {@code l} lease deadline and {@code e} expiry (ms).
 * Redis drops each record at its expiry (PEXPIREAT), so there is never anything to purge.
 */
final class RedisOpsStore implements OpsStore {
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final int SCAN_BATCH = 1000;

    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisIdempotencyStore store;
    private final String prefix;
    private final String where;

    private RedisOpsStore(RedisClient client, StatefulRedisConnection<byte[], byte[]> connection,
            RedisIdempotencyStore store, String prefix, String where) {
        this.client = client;
        this.connection = connection;
        this.store = store;
        this.prefix = prefix;
        this.where = where;
    }

    static RedisOpsStore open(String uri, String prefix) {
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw CliException.usage("--redis-uri is not a usable Redis URI: '" + uri + "' (" + e.getMessage() + ")");
        }
        parsed.setTimeout(TIMEOUT);
        String where = "Redis at " + parsed.getHost() + ":" + parsed.getPort();
        RedisClient client = RedisClient.create();
        StatefulRedisConnection<byte[], byte[]> connection;
        try {
            connection = client.connect(ByteArrayCodec.INSTANCE, parsed);
            connection.sync().ping();
        } catch (RuntimeException e) {
            client.shutdown(0, 1, TimeUnit.SECONDS);
            throw CliException.unreachable("cannot reach " + where + " (" + rootMessage(e) + ")", e);
        }
        try {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().connection(connection).keyPrefix(prefix)
                    .timeout(TIMEOUT).build();
            return new RedisOpsStore(client, connection, store, prefix, where);
        } catch (IllegalArgumentException e) {
            connection.close();
            client.shutdown(0, 1, TimeUnit.SECONDS);
            throw CliException.usage(e.getMessage().replace("keyPrefix", "--key-prefix"));
        }
    }

    @Override
    public String describe() {
        return where + ", key prefix '" + prefix + "'";
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        try {
            return store.find(key);
        } catch (StoreUnavailableException e) {
            throw CliException.unreachable("cannot read from " + where + " (" + rootMessage(e) + ")", e);
        }
    }

    /** The Redis key of a record, for the inspect output. */
    String redisKey(IdempotencyKey key) {
        return store.redisKey(key);
    }

    @Override
    public StoreStats stats(String namespace) {
        RedisCommands<byte[], byte[]> sync = connection.sync();
        RedisAsyncCommands<byte[], byte[]> async = connection.async();
        List<byte[]> time = sync.time();
        long nowMs = Long.parseLong(ascii(time.get(0))) * 1000 + Long.parseLong(ascii(time.get(1))) / 1000;
        ScanArgs match = ScanArgs.Builder.matches(glob(prefix) + "{" + (namespace == null ? "" : glob(namespace) + ":")
                + "*").limit(SCAN_BATCH);
        long completed = 0;
        long live = 0;
        long lapsed = 0;
        long expired = 0;
        long oldestToken = Long.MAX_VALUE;
        String oldestKey = null;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<byte[]> page = sync.scan(cursor, match);
            List<RedisFuture<List<KeyValue<byte[], byte[]>>>> replies = new ArrayList<>();
            for (byte[] key : page.getKeys()) {
                replies.add(async.hmget(key, bytes("s"), bytes("t"), bytes("l"), bytes("e")));
            }
            for (int i = 0; i < replies.size(); i++) {
                List<KeyValue<byte[], byte[]>> h = await(replies.get(i));
                if (h.get(0).isEmpty() || h.get(3).isEmpty()) {
                    continue; // not a record (or gone meanwhile)
                }
                String state = ascii(h.get(0).getValue());
                long expires = Long.parseLong(ascii(h.get(3).getValue()));
                if (expires <= nowMs) {
                    expired++;
                } else if ("C".equals(state)) {
                    completed++;
                } else if (Long.parseLong(ascii(h.get(2).getValue())) > nowMs) {
                    live++;
                } else {
                    lapsed++;
                }
                if (!"C".equals(state) && expires > nowMs && h.get(1).hasValue()) {
                    long token = Long.parseLong(ascii(h.get(1).getValue()));
                    if (token < oldestToken) {
                        oldestToken = token;
                        oldestKey = new String(page.getKeys().get(i), StandardCharsets.UTF_8);
                    }
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        Instant oldest = oldestKey == null ? null : Instant.EPOCH.plus(oldestToken, ChronoUnit.MICROS);
        return new StoreStats(completed, live, lapsed, expired, oldest, oldestKey == null ? null
                : displayKey(oldestKey), Instant.ofEpochMilli(nowMs),
                "Redis drops each record at its expiry; a claim time is read from its fencing token (server µs)");
    }

    @Override
    public PurgeReport purge(boolean dryRun, int max) {
        StoreStats s = stats(null);
        return new PurgeReport(dryRun, 0, "nothing to purge: Redis deletes each record itself at its expiry "
                + "(PEXPIREAT)" + (s.expiredBacklog() > 0 ? "; " + s.expiredBacklog()
                + " expired records are still visible and go at Redis's next expiry cycle" : ""));
    }

    private String displayKey(String redisKey) {
        String inner = redisKey.substring(prefix.length());
        if (inner.startsWith("{") && inner.endsWith("}")) {
            inner = inner.substring(1, inner.length() - 1);
            int colon = inner.indexOf(':');
            if (colon > 0) {
                return inner.substring(0, colon) + "/" + inner.substring(colon + 1);
            }
        }
        return redisKey;
    }

    private <T> T await(RedisFuture<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.unreachable("interrupted while reading " + where, e);
        } catch (Exception e) {
            throw CliException.unreachable("cannot read from " + where + " (" + rootMessage(e) + ")", e);
        }
    }

    private static String glob(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String ascii(byte[] b) {
        return new String(b, StandardCharsets.US_ASCII);
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            client.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }
}
