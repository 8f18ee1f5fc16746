package io.github.once.bench.store;

import io.github.once.InMemoryIdempotencyStore;
import io.github.once.tiered.TieredIdempotencyStore;
import io.github.once.bench.OnceJdbc;
import io.github.once.bench.Services;
import io.github.once.redis.RedisIdempotencyStore;

import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.camel.component.redis.processor.idempotent.SpringRedisIdempotentRepository;
import org.apache.camel.component.redis.processor.idempotent.SpringRedisStringIdempotentRepository;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.integration.metadata.SimpleMetadataStore;
import org.springframework.integration.redis.metadata.RedisMetadataStore;

/**
 * The rivals, each on its own fresh namespace (key prefix, region or processor name) so runs never see each
 * other's keys. Grouped by the store they use; compare within a group.
 */
public enum Rival {

    ONCE_MEMORY("memory") {
        @Override
        public RepositoryUnderTest open(Services services) {
            // Unique keys pile up during a benchmark: let them expire quickly so the store purges instead of
            // refusing new keys when it reaches its bound.
            return onceMemory(Duration.ofSeconds(1));
        }
    },
    CAMEL_MEMORY("memory") {
        @Override
        public RepositoryUnderTest open(Services services) {
            return new CamelRepository(MemoryIdempotentRepository.memoryIdempotentRepository(1_000_000), () -> { });
        }
    },
    SI_MEMORY("memory") {
        @Override
        public RepositoryUnderTest open(Services services) {
            SimpleMetadataStore store = new SimpleMetadataStore();
            return new SpringIntegrationRepository(store, () -> { });
        }
    },

    ONCE_REDIS("redis") {
        @Override
        public RepositoryUnderTest open(Services services) {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(services.redisUri()).build();
            return new OnceRepository(store, namespace(), RETENTION, () -> { });
        }
    },
    /** Camel's string repository: one key per id with an expiry (SET NX EX), the closest to Once's records. */
    CAMEL_REDIS("redis") {
        @Override
        public RepositoryUnderTest open(Services services) {
            SpringRedis redis = new SpringRedis(services.redisUri());
            SpringRedisStringIdempotentRepository repository =
                    new SpringRedisStringIdempotentRepository(redis.template, namespace());
            repository.setExpiry(RETENTION.toSeconds());
            return new CamelRepository(repository, redis::close);
        }
    },
    /** Camel's set repository: every id in one Redis set (SADD), no expiry. */
    CAMEL_REDIS_SET("redis") {
        @Override
        public RepositoryUnderTest open(Services services) {
            SpringRedis redis = new SpringRedis(services.redisUri());
            String setName = namespace();
            SpringRedisIdempotentRepository repository = new SpringRedisIdempotentRepository(redis.template, setName);
            return new CamelRepository(repository, () -> {
                redis.template.delete(setName);
                redis.close();
            });
        }
    },
    SI_REDIS("redis") {
        @Override
        public RepositoryUnderTest open(Services services) {
            SpringRedis redis = new SpringRedis(services.redisUri());
            String hashName = namespace();
            RedisMetadataStore store = new RedisMetadataStore(redis.factory, hashName);
            return new SpringIntegrationRepository(store, () -> {
                redis.template.delete(hashName);
                redis.close();
            });
        }
    },

    /**
     * The floor on Redis, for the ratio of Once's store to it: {@code SET NX PX} then {@code SET XX PX} per new key,
     * one {@code SET NX} per duplicate (see {@link FloorRedis}).
     */
    FLOOR_REDIS("redis") {
        @Override
        public RepositoryUnderTest open(Services services) {
            return new FloorRedis(services.redisUri(), namespace(), RETENTION);
        }
    },

    ONCE_JDBC("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            String namespace = namespace();
            OnceJdbc jdbc = OnceJdbc.open(services, namespace);
            return new OnceRepository(jdbc.store(), namespace, RETENTION, jdbc::close);
        }
    },
    /**
     * Once's tiered store: Redis in front of PostgreSQL. New keys pay the JDBC claim and completion plus the front's
     * read (the copy is written off the caller's thread); duplicates are answered by Redis alone.
     */
    ONCE_TIERED("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            String namespace = namespace();
            OnceJdbc jdbc = OnceJdbc.open(services, namespace);
            RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri(services.redisUri()).build();
            // Closing the repository closes the tiered store, which closes both; jdbc.close() then deletes the rows.
            return new OnceRepository(TieredIdempotencyStore.builder(front, jdbc.store()).build(), namespace, RETENTION, jdbc::close);
        }
    },
    /**
     * The tiered store with an in-memory front over PostgreSQL (run on request): the same code as
     * {@code once-tiered} without a network round trip to the front, so that the two side by side show what that
     * round trip costs a new key.
     */
    ONCE_TIERED_MEMORY_FRONT("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            String namespace = namespace();
            OnceJdbc jdbc = OnceJdbc.open(services, namespace);
            InMemoryIdempotencyStore front = InMemoryIdempotencyStore.builder().maxRecords(4_000_000).build();
            return new OnceRepository(TieredIdempotencyStore.builder(front, jdbc.store()).build(), namespace, RETENTION, jdbc::close);
        }
    },
    /**
     * The floor on PostgreSQL, for the ratio of Once's store to it: {@code INSERT ... ON CONFLICT DO NOTHING} then
     * {@code UPDATE}, each auto-committed, per new key; the one insert per duplicate (see {@link FloorPostgres}).
     */
    FLOOR_POSTGRESQL("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            return new FloorPostgres(services.dataSource("floor-postgresql"), namespace(), RETENTION);
        }
    },
    CAMEL_JDBC("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            HikariDataSource dataSource = services.dataSource("camel-jdbc");
            JdbcMessageIdRepository repository = new JdbcMessageIdRepository(dataSource, namespace());
            return new CamelRepository(repository, () -> {
                repository.clear();
                dataSource.close();
            });
        }
    },
    SI_JDBC("postgresql") {
        @Override
        public RepositoryUnderTest open(Services services) {
            HikariDataSource dataSource = services.dataSource("si-jdbc");
            createMetadataTable(dataSource);
            String region = namespace();
            JdbcMetadataStore store = new JdbcMetadataStore(dataSource);
            store.setRegion(region);
            store.afterPropertiesSet();
            store.start();
            return new SpringIntegrationRepository(store, () -> {
                execute(dataSource, "DELETE FROM INT_METADATA_STORE WHERE REGION = '" + region + "'");
                store.stop();
                dataSource.close();
            });
        }
    };

    /** How long the rivals keep a done key where they can expire it. */
    static final Duration RETENTION = Duration.ofMinutes(10);

    private final String store;

    Rival(String store) {
        this.store = store;
    }

    /** The store this rival runs on: memory, redis or postgresql. */
    public String store() {
        return store;
    }

    /** The rival's name as a JMH parameter: {@code once-redis}, {@code camel-jdbc}... */
    public String paramName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Rival fromParam(String name) {
        for (Rival rival : values()) {
            if (rival.paramName().equals(name)) {
                return rival;
            }
        }
        throw new IllegalArgumentException("rival must be one of " + Arrays.stream(values()).map(Rival::paramName)
                .collect(Collectors.joining(", ")) + ", but was '" + name + "'");
    }

    /** Opens a fresh instance on its own namespace. */
    /** Once's in-memory store with records kept for {@code retention}: tests keep them longer than a benchmark. */
    static RepositoryUnderTest onceMemory(Duration retention) {
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().maxRecords(4_000_000).build();
        return new OnceRepository(store, namespace(), retention, () -> { });
    }

    public abstract RepositoryUnderTest open(Services services);

    static String namespace() {
        return "bench-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Creates Spring Integration's metadata table from the schema script that ships in spring-integration-jdbc. */
    static void createMetadataTable(HikariDataSource dataSource) {
        String script;
        try (InputStream in = JdbcMetadataStore.class.getResourceAsStream(
                "/org/springframework/integration/jdbc/schema-postgresql.sql")) {
            if (in == null) {
                throw new IllegalStateException("schema-postgresql.sql is missing from spring-integration-jdbc");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read Spring Integration's schema", e);
        }
        Matcher create = Pattern.compile("CREATE TABLE (INT_METADATA_STORE\\s*\\(.*?\\));", Pattern.DOTALL)
                .matcher(script);
        if (!create.find()) {
            throw new IllegalStateException("no INT_METADATA_STORE table in Spring Integration's schema");
        }
        execute(dataSource, "CREATE TABLE IF NOT EXISTS " + create.group(1));
    }

    static void execute(HikariDataSource dataSource, String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }
}
