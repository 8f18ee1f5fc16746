package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.redis.internal.KeyLayout;
import io.github.once.redis.internal.LuaScript;
import io.github.once.redis.internal.RedisConnections;
import io.github.once.redis.internal.RedisStoreInspector;
import io.github.once.redis.internal.Replies;
import io.github.once.redis.internal.ScriptArgs;
import io.github.once.redis.internal.ScriptCalls;
import io.github.once.redis.internal.ScriptLoading;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.StoreInspector;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.resource.ClientResources;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Records in Redis, one hash per record, over Lettuce. Each of claim, complete, release, renew and find is one
 * Lua script call on one key (one round trip, atomic, Redis Cluster safe). On a single Redis {@link #claim} and
 * {@link #complete} run a whole batch as one script call (per {@value ScriptCalls#BATCH_CHUNK} keys); on a cluster they
 * pipeline one call per key. Deadlines come from the Redis server's clock
 * ({@code TIME}), so clock skew between consumers cannot break a lease. Redis expires records itself: an in-progress record at the later of its lease
 * and its retention (so the fencing counter survives a takeover), a completed one at its retention.
 *
 * <pre>{@code
 * try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
 *         .uri("redis://127.0.0.1:6379")
 *         .build()) {
 *     Idempotency once = Idempotency.builder(store).build();
 * }
 * }</pre>
 *
 * <p>Records live as long as Redis keeps its data: use AOF or replicas where a lost record (and so a repeated
 * effect) matters, and a {@code maxmemory-policy} of {@code noeviction}, since every record has a TTL and a
 * {@code volatile-*} or {@code allkeys-*} policy would evict records inside their retention.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

    /** The default key prefix. */
    public static final String DEFAULT_KEY_PREFIX = "once:";
    /** The default time to wait for Redis before raising {@link io.github.once.StoreUnavailableException}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final RedisConnections connections;
    private final ScriptCalls calls;
    private final KeyLayout keys;
    private final Duration timeout;

    private RedisIdempotencyStore(RedisConnections connections, KeyLayout keys, Duration timeout) {
        this.connections = connections;
        this.keys = keys;
        this.timeout = timeout;
        this.calls = new ScriptCalls(connections, timeout);
    }

    public static Builder builder() {
        return new Builder();
    }

    private ClaimResult claimOne(ClaimRequest request) {
        byte[] key = keys.key(request.key());
        byte[][] args = ScriptArgs.claim(request);
        List<Object> reply = calls.call(LuaScript.CLAIM, ScriptOutputType.MULTI, key, args);
        return Replies.claim(request.key(), reply);
    }

    /**
     * One key is one script call. On a single Redis one script call per {@value ScriptCalls#BATCH_CHUNK} keys runs every claim
     * of a batch in order; on a cluster every claim is its own call, all sent before any reply is read. Either way
     * one round trip per chunk, and the answers are those of single claims in order.
     */
    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        if (requests.size() <= 1) {
            return requests.isEmpty() ? List.of() : List.of(claimOne(requests.get(0)));
        }
        return claimResults(requests, onEachKey(LuaScript.CLAIM, LuaScript.CLAIM_ALL, ScriptOutputType.MULTI,
                ScriptArgs.Calls.claims(keys, requests)));
    }

    private static List<ClaimResult> claimResults(List<ClaimRequest> requests, List<Object> replies) {
        List<ClaimResult> results = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            results.add(Replies.claim(requests.get(i).key(), Replies.list(replies.get(i))));
        }
        return results;
    }

    private boolean completeOne(Lease lease, byte[] result, Duration retention) {
        requirePositive(retention, "retention");
        return Replies.done(calls.call(LuaScript.COMPLETE, ScriptOutputType.INTEGER, keys.key(lease.key()),
                ScriptArgs.complete(lease, result, retention)));
    }

    /** One script call per chunk on a single Redis, one pipelined call per key on a cluster, as {@link #claim}. */
    @Override
    public List<Boolean> complete(List<Completion> completions) {
        if (completions.size() <= 1) {
            return completions.isEmpty() ? List.of() : List.of(completeOne(completions.get(0).lease(),
                    completions.get(0).result(), completions.get(0).retention()));
        }
        return completionResults(onEachKey(LuaScript.COMPLETE, LuaScript.COMPLETE_ALL, ScriptOutputType.INTEGER,
                ScriptArgs.Calls.completions(keys, completions)));
    }

    private static List<Boolean> completionResults(List<Object> replies) {
        List<Boolean> done = new ArrayList<>(replies.size());
        for (Object reply : replies) {
            done.add(Replies.done(reply));
        }
        return done;
    }

    private List<Object> onEachKey(LuaScript single, LuaScript batch, ScriptOutputType type, ScriptArgs.Calls calls) {
        return this.calls.onEachKey(single, batch, type, calls.keyNames(), calls.args());
    }

    /** Operators' view of this store's records (counts and listings SCAN the key prefix). */
    public StoreInspector inspector() {
        return new RedisStoreInspector(connections, calls, keys, timeout);
    }

    private static void requirePositive(Duration value, String name) {
        if (Objects.requireNonNull(value, name).isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, but was " + value);
        }
    }

    @Override
    public boolean release(Lease lease) {
        return Replies.done(calls.call(LuaScript.RELEASE, ScriptOutputType.INTEGER, keys.key(lease.key()),
                ScriptArgs.token(lease)));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        requirePositive(leaseDuration, "leaseDuration");
        Long until = calls.call(LuaScript.RENEW, ScriptOutputType.INTEGER, keys.key(lease.key()),
                ScriptArgs.token(lease), ScriptArgs.millis(leaseDuration));
        return until == null || until <= 0 ? Optional.empty()
                : Optional.of(new Lease(lease.key(), lease.token(), Instant.ofEpochMilli(until)));
    }

    private Optional<IdempotencyRecord> findOne(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        List<Object> reply = calls.call(LuaScript.FIND, ScriptOutputType.MULTI, keys.key(key));
        return Replies.find(key, reply);
    }

    /**
     * One script call for the batch (per {@value ScriptCalls#BATCH_CHUNK} keys) on a single Redis; on a cluster every key's
     * find is sent before any reply is read. One round trip either way.
     */
    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keysToFind) {
        if (keysToFind.size() == 1) {
            return List.of(findOne(keysToFind.get(0)));
        }
        // As claims: one script call per chunk on a single Redis, one call per key (pipelined) on a cluster.
        ScriptArgs.Calls calls = ScriptArgs.Calls.finds(keys, keysToFind);
        return calls.keyNames().length == 0 ? List.of() : records(keysToFind,
                onEachKey(LuaScript.FIND, LuaScript.FIND_ALL, ScriptOutputType.MULTI, calls));
    }

    @SuppressWarnings("unchecked")
    private static List<Optional<IdempotencyRecord>> records(List<IdempotencyKey> keysFound, List<Object> replies) {
        List<Optional<IdempotencyRecord>> found = new ArrayList<>(keysFound.size());
        for (int i = 0; i < keysFound.size(); i++) {
            found.add(Replies.find(keysFound.get(i), (List<Object>) replies.get(i))); // null: no record
        }
        return found;
    }

    /** The Redis key that holds {@code key}'s record, for operators and tests. */
    public String redisKey(IdempotencyKey key) {
        return new String(keys.key(key), StandardCharsets.UTF_8);
    }

    public String keyPrefix() {
        return keys.prefix();
    }

    public Duration timeout() {
        return timeout;
    }

    /** Closes the connections and the client this store made; a connection passed in stays open. */
    @Override
    public void close() {
        connections.close();
    }

    @Override
    public String toString() {
        return "RedisIdempotencyStore[" + connections + ", keyPrefix='" + keys.prefix() + "', timeout=" + timeout + "]";
    }

    /**
     * Checks that Redis answers and that every script of this store loads ({@code SCRIPT LOAD}).
     *
     * @throws io.github.once.StoreUnavailableException   when Redis does not answer within the timeout (the message
     *                                                    names where it was sought)
     * @throws io.github.once.StoreMisconfiguredException when Redis refuses (credentials, ACL permissions, scripting
     *                                                    disabled), naming what to change
     */
    @Override
    public void verify() {
        ScriptLoading.verify(connections, keys.prefix(), timeout);
    }

    /**
     * Settings of a store. Pick where Redis is with {@link #uri}, {@link #redisUri}, {@link #clusterUris},
     * {@link #connection} or {@link #clusterConnection}; the last given wins.
     */
    public static final class Builder {
        private List<RedisURI> uris;
        private boolean cluster;
        private StatefulRedisConnection<byte[], byte[]> connection;
        private StatefulRedisClusterConnection<byte[], byte[]> clusterConnection;
        private String username;
        private char[] password;
        private ClientResources clientResources;
        private SslOptions sslOptions;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration timeout = DEFAULT_TIMEOUT;

        private Builder() {
        }

        /**
         * One Redis by URI: {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://} for TLS.
         */
        public Builder uri(String uri) {
            return redisUri(parse(uri, "uri"));
        }

        /** One Redis, with every Lettuce URI option (TLS verification, client name, credentials provider...). */
        public Builder redisUri(RedisURI uri) {
            Objects.requireNonNull(uri, "uri");
            return target(List.of(uri), false);
        }

        /** A Redis Cluster, by the URIs of one or more of its nodes; the rest are discovered. */
        public Builder clusterUris(String... seeds) {
            Objects.requireNonNull(seeds, "seeds");
            List<RedisURI> parsed = new ArrayList<>(seeds.length);
            for (String seed : seeds) {
                parsed.add(parse(seed, "clusterUris"));
            }
            return clusterRedisUris(parsed);
        }

        public Builder clusterRedisUris(List<RedisURI> seeds) {
            Objects.requireNonNull(seeds, "seeds");
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("clusterUris must name at least one node, but was empty");
            }
            return target(List.copyOf(seeds), true);
        }

        /**
         * A connection the caller made and keeps owning: the store never closes it. It must use a byte-array codec
         * ({@code io.lettuce.core.codec.ByteArrayCodec}); its own timeout settings stay as they are, and the
         * store additionally waits at most {@link #timeout} for each answer.
         */
        public Builder connection(StatefulRedisConnection<byte[], byte[]> connection) {
            Objects.requireNonNull(connection, "connection");
            clearTarget();
            this.connection = connection;
            return this;
        }

        /** A cluster connection the caller made and keeps owning; as {@link #connection}. */
        public Builder clusterConnection(StatefulRedisClusterConnection<byte[], byte[]> connection) {
            Objects.requireNonNull(connection, "connection");
            clearTarget();
            this.clusterConnection = connection;
            return this;
        }

        /** Credentials for every URI (an ACL user, or {@code null} for the default user), overriding the URIs'. */
        public Builder credentials(String username, char[] password) {
            Objects.requireNonNull(password, "password");
            this.username = username;
            this.password = password.clone();
            return this;
        }

        /** Lettuce's threads and timers, shared with other clients; the store does not shut them down. */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = Objects.requireNonNull(clientResources, "clientResources");
            return this;
        }

        /**
         * TLS settings for {@code rediss://} URIs: trust store, key store for client certificates, protocols. Without
         * them the JVM's default trust store verifies the server.
         */
        public Builder sslOptions(SslOptions sslOptions) {
            this.sslOptions = Objects.requireNonNull(sslOptions, "sslOptions");
            return this;
        }

        /**
         * Prepended to every key (default {@value RedisIdempotencyStore#DEFAULT_KEY_PREFIX}): at most 64 printable
         * ASCII characters, no spaces or braces.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = KeyLayout.validPrefix(keyPrefix);
            return this;
        }

        /**
         * How long to wait for Redis (connecting, and each answer) before raising
         * {@link io.github.once.StoreUnavailableException} (default 2 s).
         */
        public Builder timeout(Duration timeout) {
            requirePositive(timeout, "timeout");
            if (timeout.toMillis() < 1) {
                throw new IllegalArgumentException("timeout must be at least 1 ms, but was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Connects (for URIs) and loads the scripts. A Redis that is down, or refuses this client, does not fail
         * the build: each call raises {@link io.github.once.StoreUnavailableException} until the connection opens,
         * and the first call after Redis answers opens it (from then on Lettuce reconnects on its own). Call
         * {@link RedisIdempotencyStore#verify()} to fail at start-up instead.
         *
         * @throws IllegalStateException when no Redis was named
         */
        public RedisIdempotencyStore build() {
            KeyLayout layout = new KeyLayout(keyPrefix);
            RedisConnections connections;
            if (connection != null) {
                connections = RedisConnections.borrowed(connection);
            } else if (clusterConnection != null) {
                connections = RedisConnections.borrowed(clusterConnection);
            } else if (uris != null) {
                List<RedisURI> effective = new ArrayList<>(uris.size());
                for (RedisURI uri : uris) {
                    effective.add(configured(uri));
                }
                connections = cluster
                        ? RedisConnections.openCluster(effective, clientResources, sslOptions, timeout)
                        : RedisConnections.openStandalone(effective.get(0), clientResources, sslOptions, timeout);
            } else {
                throw new IllegalStateException("no Redis named: set uri, redisUri, clusterUris, connection or "
                        + "clusterConnection");
            }
            RedisIdempotencyStore store = new RedisIdempotencyStore(connections, layout, timeout);
            ScriptLoading.preload(store.connections, store.timeout);
            return store;
        }

        /** A copy of {@code uri} with this builder's timeout and credentials; the caller's object is untouched. */
        private RedisURI configured(RedisURI uri) {
            RedisURI.Builder copy = RedisURI.builder(uri).withTimeout(timeout);
            if (password != null) {
                copy.withAuthentication(username == null ? "default" : username, password);
            }
            return copy.build();
        }

        private Builder target(List<RedisURI> targets, boolean isCluster) {
            clearTarget();
            this.uris = targets;
            this.cluster = isCluster;
            return this;
        }

        private void clearTarget() {
            uris = null;
            cluster = false;
            connection = null;
            clusterConnection = null;
        }

        private static RedisURI parse(String uri, String setting) {
            Objects.requireNonNull(uri, setting);
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(setting + " is not a valid Redis URI: '" + uri + "' ("
                        + e.getMessage() + ")", e);
            }
        }
    }
}
