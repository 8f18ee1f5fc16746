package io.github.once.spring.boot;

import io.github.once.IdempotencyConfig;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.PayloadFingerprint;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.JsonFingerprint;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.TransactionalStore;
import io.github.once.spring.boot.internal.Boot3HealthIndicator;
import io.github.once.spring.boot.internal.Boot4HealthIndicator;
import io.github.once.spring.boot.internal.JdbcStores;
import io.github.once.spring.boot.internal.MeterSupport;
import io.github.once.spring.boot.internal.OnceEndpoint;
import io.github.once.spring.boot.internal.OnceStoreHealth;
import io.github.once.spring.boot.internal.RedisStores;
import io.github.once.spring.rabbit.OnceAdvice;
import io.github.once.spring.rabbit.OnceListenerRegistrar;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import org.aopalliance.aop.Advice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.amqp.support.converter.SimpleMessageConverter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Once for a Spring Boot application. Uses only what Boot 4.0 and 3.5 share (the other auto-configurations are
 * named, not imported, since Boot 4 moved them); the health indicator has one small class per line.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration",
        "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass(OnceAdvice.class)
@EnableConfigurationProperties(OnceProperties.class)
public class OnceAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(OnceAutoConfiguration.class);
    private static final String JDBC = "io.github.once.jdbc.JdbcIdempotencyStore";
    private static final String REDIS = "io.github.once.redis.RedisIdempotencyStore";

    /**
     * The store, built whether or not its server answers now (it connects at its first call). With
     * {@code once.fail-fast=true} its start-up check runs here and a store that cannot be reached fails the start.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    IdempotencyStore onceStore(OnceProperties properties, ObjectProvider<DataSource> dataSource,
                                      Environment env) {
        IdempotencyStore store = store(properties, dataSource, env);
        if (properties.isFailFast()) {
            try {
                store.verify();
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
        return store;
    }

    private IdempotencyStore store(OnceProperties properties, ObjectProvider<DataSource> dataSource, Environment env) {
        OnceProperties.StoreKind kind = properties.getStore();
        ClassLoader loader = getClass().getClassLoader();
        boolean jdbcWanted = kind == OnceProperties.StoreKind.JDBC
                || kind == OnceProperties.StoreKind.AUTO && ClassUtils.isPresent(JDBC, loader);
        DataSource ds = jdbcWanted ? dataSource.getIfUnique() : null;
        if (kind == OnceProperties.StoreKind.JDBC
                || kind == OnceProperties.StoreKind.AUTO && ds != null && ClassUtils.isPresent(JDBC, loader)) {
            if (ds == null) {
                throw new IllegalStateException("once.store=jdbc needs a DataSource bean");
            }
            return JdbcStores.create(ds, properties.getJdbc());
        }
        if (kind == OnceProperties.StoreKind.REDIS
                || kind == OnceProperties.StoreKind.AUTO && ClassUtils.isPresent(REDIS, loader)) {
            return RedisStores.create(env, properties.getRedis());
        }
        log.warn("Once records keys in memory: duplicates across restarts and instances are NOT caught. Add "
                + "once-jdbc (with a DataSource) or once-redis (with spring.data.redis.*) for a durable store.");
        return InMemoryIdempotencyStore.builder().build();
    }

    @Bean
    @ConditionalOnMissingBean
    OnceStoreHealth onceStoreHealth(IdempotencyStore store) {
        return new OnceStoreHealth(store);
    }

    /** Keeps micrometer-observation off the class path of applications that do not turn observations on. */
    private static final class Observations {
        static void bind(OnceAdvice.Builder b, org.springframework.context.ApplicationContext context) {
            io.micrometer.observation.ObservationRegistry registry =
                    context.getBeanProvider(io.micrometer.observation.ObservationRegistry.class).getIfUnique();
            if (registry != null) {
                b.observationRegistry(registry);
            }
        }
    }

    /** Everything about RabbitMQ listeners; only with Spring AMQP's connection factory. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ConnectionFactory.class)
    static class RabbitListeners {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        @ConditionalOnBean(ConnectionFactory.class)
        OnceAdvice onceAdvice(IdempotencyStore store, ConnectionFactory connectionFactory, OnceProperties p,
                              ObjectProvider<PlatformTransactionManager> transactions,
                              ObjectProvider<DataSource> dataSource,
                              org.springframework.context.ApplicationContext context) {
            OnceAdvice.Builder b = OnceAdvice.builder(store, connectionFactory)
                    .idempotency(idempotency(p))
                    .consumer(consumer(p));
            if (p.getJdbc().isTransactional() && store instanceof TransactionalStore) {
                PlatformTransactionManager manager = transactions.getIfUnique();
                DataSource ds = dataSource.getIfUnique();
                if (manager != null && ds != null) {
                    b.transactional(manager, ds);
                }
            }
            if (ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", getClass().getClassLoader())
                    && ClassUtils.isPresent("io.github.once.micrometer.OnceMeters", getClass().getClassLoader())) {
                MeterBinding.bind(b, context, p.getNamespace());
            }
            if (p.isObservationEnabled()
                    && ClassUtils.isPresent("io.micrometer.observation.ObservationRegistry", getClass().getClassLoader())) {
                Observations.bind(b, context);
            }
            return b.build();
        }

        @Bean
        static OnceListenerRegistrar onceListenerRegistrar(ObjectProvider<OnceAdvice> advice,
                                                           ObjectProvider<MessageConverter> converter) {
            return new OnceListenerRegistrar(advice::getObject,
                    () -> converter.getIfUnique(SimpleMessageConverter::new));
        }

        /** Puts Once first in the advice chain of every listener container factory. */
        @Bean
        @ConditionalOnProperty(prefix = "once.rabbit", name = "advise-factories", matchIfMissing = true)
        static BeanPostProcessor onceContainerFactoryAdvice(ObjectProvider<OnceAdvice> advice, Environment env) {
            boolean every = env.getProperty("once.rabbit.every-listener", Boolean.class, false);
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
                        OnceAdvice once = advice.getObject();
                        Advice[] chain = factory.getAdviceChain();
                        int n = chain == null ? 0 : chain.length;
                        Advice[] advised = new Advice[n + 1];
                        advised[0] = every ? once.forEveryListener() : once;
                        if (n > 0) {
                            System.arraycopy(chain, 0, advised, 1, n);
                            log.warn("Once runs outside the other advices of {} (such as Spring's retry): Once "
                                    + "retries through delay queues, so Spring's listener retry is best left off", name);
                        }
                        factory.setAdviceChain(advised);
                    }
                    return bean;
                }
            };
        }
    }

    /** The actuator endpoint {@code once}, exposed and secured as Boot's other endpoints (not over HTTP by default). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoints {
        @Bean
        @ConditionalOnMissingBean
        OnceEndpoint onceEndpoint(IdempotencyStore store, ObjectProvider<OnceAdvice> advice,
                                  ObjectProvider<ConnectionFactory> connectionFactory) {
            ConnectionFactory factory = connectionFactory.getIfUnique();
            return new OnceEndpoint(store, () -> {
                OnceAdvice once = advice.getIfAvailable();
                return once == null ? Map.of() : once.namespaces();
            }, factory instanceof AbstractConnectionFactory f ? f.getRabbitConnectionFactory() : null);
        }
    }

    /** The health indicator on Boot 4 (spring-boot-health). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Boot4Health {
        @Bean
        @ConditionalOnMissingBean(name = "onceHealthIndicator")
        Object onceHealthIndicator(OnceStoreHealth health) {
            return new Boot4HealthIndicator(health);
        }
    }

    /** The health indicator on Boot 3.5 (spring-boot-actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Boot3Health {
        @Bean
        @ConditionalOnMissingBean(name = "onceHealthIndicator")
        Object onceHealthIndicator(OnceStoreHealth health) {
            return new Boot3HealthIndicator(health);
        }
    }

    static IdempotencyConfig idempotency(OnceProperties p) {
        PayloadFingerprint fingerprint = switch (p.getFingerprint()) {
            case NONE -> PayloadFingerprint.NONE;
            case JSON_FIELDS -> JsonFingerprint.fields(p.getFingerprintFields().toArray(String[]::new));
            default -> PayloadFingerprint.SHA_256;
        };
        return IdempotencyConfig.builder().leaseDuration(p.getLease()).retention(p.getRetention())
                .fingerprint(fingerprint).build();
    }

    static ConsumerConfig consumer(OnceProperties p) {
        OnceProperties.Rabbit r = p.getRabbit();
        RetryPolicy retry = RetryPolicy.builder().maxAttempts(p.getRetry().getMaxAttempts())
                .backoff(p.getRetry().getBackoff().toArray(Duration[]::new)).build();
        Topology.QueueType type = Topology.QueueType.valueOf(r.getQueueType().toUpperCase(Locale.ROOT));
        Topology topology = switch (r.getDeclare().toLowerCase(Locale.ROOT)) {
            case "all" -> Topology.declareAll(type);
            case "none" -> Topology.none();
            case "retry-queues" -> Topology.retryQueuesOnly(type);
            default -> throw new IllegalArgumentException("once.rabbit.declare must be retry-queues, all or none, but was "
                    + r.getDeclare());
        };
        ConsumerConfig.Builder b = ConsumerConfig.builder().retry(retry).topology(topology)
                .moveTimeout(r.getMoveTimeout()).storeBackoff(r.getStoreBackoff(), r.getMaxStoreBackoff());
        if (p.getNamespace() != null && !p.getNamespace().isBlank()) {
            b.namespace(p.getNamespace());
        }
        return b.build();
    }

    /** Finds a MeterRegistry without naming its class where Micrometer may be absent. */
    private static final class MeterBinding {
        static void bind(OnceAdvice.Builder b, org.springframework.context.ApplicationContext context, String ns) {
            io.micrometer.core.instrument.MeterRegistry registry = context
                    .getBeanProvider(io.micrometer.core.instrument.MeterRegistry.class).getIfUnique();
            if (registry != null) {
                MeterSupport.bind(b, registry, ns);
            }
        }
    }
}
