package io.github.once.spring.boot;

import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code once.*} properties. */
@ConfigurationProperties(prefix = "once")
public class OnceProperties {

    /** Which store records the keys. */
    public enum StoreKind {
        /** The application's DataSource if it has one, else Redis if once-redis is present, else in memory. */
        AUTO,
        /** once-jdbc in the application's DataSource. */
        JDBC,
        /** once-redis on the Redis that spring.data.redis.* describes. */
        REDIS,
        /** In this process only: duplicates across restarts or instances are not caught. */
        MEMORY
    }

    /** How a payload is fingerprinted to catch a reused id with other content. */
    public enum Fingerprint {
        /** SHA-256 of the body. */
        SHA_256,
        /** No conflict check. */
        NONE,
        /** Only the JSON fields in once.fingerprint-fields. */
        JSON_FIELDS
    }

    /** Which store records the keys. */
    private StoreKind store = StoreKind.AUTO;
    /** The key namespace of every listener; default: each listener's queue name. */
    private String namespace;
    /** How long a claim holds a key while the listener runs (renewed every third). */
    private Duration lease = Duration.ofSeconds(30);
    /** How long a completed key is remembered. */
    private Duration retention = Duration.ofHours(24);
    /** How a payload is fingerprinted to catch a reused id with other content. */
    private Fingerprint fingerprint = Fingerprint.SHA_256;
    /** The JSON fields (names or JSON Pointers) fingerprinted when once.fingerprint is json-fields. */
    private List<String> fingerprintFields = new ArrayList<>();
    /**
     * Fail at start-up when the store cannot be reached or is not set up. By default the application starts, the
     * health component reports the store DOWN, and the listeners start when the store answers.
     */
    private boolean failFast;
    /**
     * Observe each message with the application's ObservationRegistry (spans with Micrometer Tracing, timers with
     * a meter registry): once.process, once.claim, once.handle, once.complete, once.publish. Off by default, like
     * Spring AMQP's listener observation (spring.rabbitmq.listener.simple.observation-enabled).
     */
    private boolean observationEnabled;
    private final Jdbc jdbc = new Jdbc();
    private final Redis redis = new Redis();
    private final Retry retry = new Retry();
    private final Rabbit rabbit = new Rabbit();

    public StoreKind getStore() {
        return store;
    }

    public void setStore(StoreKind store) {
        this.store = store;
    }

    public boolean isFailFast() {
        return failFast;
    }

    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }

    public boolean isObservationEnabled() {
        return observationEnabled;
    }

    public void setObservationEnabled(boolean observationEnabled) {
        this.observationEnabled = observationEnabled;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public Fingerprint getFingerprint() {
        return fingerprint;
    }

    public void setFingerprint(Fingerprint fingerprint) {
        this.fingerprint = fingerprint;
    }

    public List<String> getFingerprintFields() {
        return fingerprintFields;
    }

    public void setFingerprintFields(List<String> fingerprintFields) {
        this.fingerprintFields = fingerprintFields;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Redis getRedis() {
        return redis;
    }

    public Retry getRetry() {
        return retry;
    }

    public Rabbit getRabbit() {
        return rabbit;
    }

    /** once-jdbc in the application's DataSource. */
    public static class Jdbc {
        /** The records' table. */
        private String table = JdbcIdempotencyStore.DEFAULT_TABLE;
        /** Create the table at start when it is missing; turn off when Flyway or Liquibase owns the schema. */
        private boolean createTable = true;
        /** Write the record in the listener's Spring transaction when a transaction manager is present. */
        private boolean transactional = true;

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }

        public boolean isTransactional() {
            return transactional;
        }

        public void setTransactional(boolean transactional) {
            this.transactional = transactional;
        }
    }

    /** once-redis; the connection itself comes from spring.data.redis.*. */
    public static class Redis {
        /** Prefix of every key Once writes. */
        private String keyPrefix = RedisIdempotencyStore.DEFAULT_KEY_PREFIX;
        /** Timeout of each store call. */
        private Duration timeout = Duration.ofSeconds(2);

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Delayed retries of failed listeners, then the dead-letter queue. */
    public static class Retry {
        /** Listener attempts before the dead-letter queue, the first included. */
        private int maxAttempts = 5;
        /** The delay levels, shortest first: one delay queue each (<queue>.once.delay.<ms>). */
        private List<Duration> backoff = new ArrayList<>(List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ofSeconds(30)));

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public List<Duration> getBackoff() {
            return backoff;
        }

        public void setBackoff(List<Duration> backoff) {
            this.backoff = backoff;
        }
    }

    /** The listener containers. */
    public static class Rabbit {
        /** Add Once to the advice chain of every listener container factory. */
        private boolean adviseFactories = true;
        /** Make every listener idempotent, not only the methods marked @Once. */
        private boolean everyListener;
        /** Queues Once declares: retry-queues (delay and dead-letter, the default), all, or none. */
        private String declare = "retry-queues";
        /** Type of the queues Once declares: classic or quorum. */
        private String queueType = "classic";
        /** How long to wait for the confirm of a moved copy before giving the message back. */
        private Duration moveTimeout = Duration.ofSeconds(5);
        /** First pause of the containers while the store is unreachable or a moved copy is not confirmed. */
        private Duration storeBackoff = Duration.ofMillis(200);
        /** Longest pause of the containers (doubling from the first) while the store or the broker fails. */
        private Duration maxStoreBackoff = Duration.ofSeconds(10);

        public boolean isAdviseFactories() {
            return adviseFactories;
        }

        public void setAdviseFactories(boolean adviseFactories) {
            this.adviseFactories = adviseFactories;
        }

        public boolean isEveryListener() {
            return everyListener;
        }

        public void setEveryListener(boolean everyListener) {
            this.everyListener = everyListener;
        }

        public String getDeclare() {
            return declare;
        }

        public void setDeclare(String declare) {
            this.declare = declare;
        }

        public String getQueueType() {
            return queueType;
        }

        public void setQueueType(String queueType) {
            this.queueType = queueType;
        }

        public Duration getMoveTimeout() {
            return moveTimeout;
        }

        public void setMoveTimeout(Duration moveTimeout) {
            this.moveTimeout = moveTimeout;
        }

        public Duration getStoreBackoff() {
            return storeBackoff;
        }

        public void setStoreBackoff(Duration storeBackoff) {
            this.storeBackoff = storeBackoff;
        }

        public Duration getMaxStoreBackoff() {
            return maxStoreBackoff;
        }

        public void setMaxStoreBackoff(Duration maxStoreBackoff) {
            this.maxStoreBackoff = maxStoreBackoff;
        }
    }
}
