package io.github.once.spring.rabbit;

import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.KeyExtractor;
import io.github.once.spring.rabbit.internal.MessageKeys;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.springframework.amqp.rabbit.annotation.QueueBinding;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Finds the {@code @RabbitListener} methods marked {@link Once} and registers their queues with the
 * {@link OnceAdvice}, each with its key and namespace; tells the advice which containers consume which queue,
 * so it can stop them while the store is unreachable. Register it as a static {@code @Bean}.
 *
 * <p>As a lifecycle bean it runs just before the listener containers start: when the store does not answer then
 * (one read, waiting at most 5 s), the containers of Once's queues stay stopped and start as soon as
 * it answers, so the application starts while its store is down and takes no delivery until it is back.
 */
public final class OnceListenerRegistrar implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton,
        SmartLifecycle {
    /** Just before the listener containers and their registry ({@code Integer.MAX_VALUE}). */
    private static final int PHASE = Integer.MAX_VALUE - 1000;

    private final Supplier<OnceAdvice> advice;
    private final Supplier<MessageConverter> converter;
    private final Map<String, Once> found = new LinkedHashMap<>();
    private ConfigurableBeanFactory beanFactory;
    private volatile boolean running;

    /** {@code converter} reads payloads for {@link Once#key()}. */
    public OnceListenerRegistrar(Supplier<OnceAdvice> advice, Supplier<MessageConverter> converter) {
        this.advice = Objects.requireNonNull(advice, "advice");
        this.converter = Objects.requireNonNull(converter, "converter");
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = (ConfigurableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        ReflectionUtils.doWithMethods(type, method -> {
            Once once = AnnotatedElementUtils.findMergedAnnotation(method, Once.class);
            if (once == null) {
                return;
            }
            RabbitListener listener = AnnotatedElementUtils.findMergedAnnotation(method, RabbitListener.class);
            if (listener == null) {
                throw new IllegalStateException("@Once on " + method + " needs @RabbitListener on the same method");
            }
            for (String queue : queues(listener)) {
                Once before = found.put(queue, once);
                if (before != null && !before.equals(once)) {
                    throw new IllegalStateException("queue " + queue + " has two different @Once listeners");
                }
            }
        });
        return bean;
    }

    private List<String> queues(RabbitListener listener) {
        List<String> names = new ArrayList<>();
        for (String q : listener.queues()) {
            names.add(resolve(q));
        }
        for (org.springframework.amqp.rabbit.annotation.Queue q : listener.queuesToDeclare()) {
            names.add(resolve(StringUtils.hasText(q.value()) ? q.value() : q.name()));
        }
        for (QueueBinding b : listener.bindings()) {
            names.add(resolve(StringUtils.hasText(b.value().value()) ? b.value().value() : b.value().name()));
        }
        return names;
    }

    private String resolve(String value) {
        String resolved = embedded(value);
        if (!StringUtils.hasText(resolved)) {
            throw new IllegalStateException("a @Once listener's queue must be named, but was '" + value + "'");
        }
        return resolved;
    }

    /**
     * {@code ${...}} placeholders resolved, then {@code #{...}} expressions evaluated, as {@code @RabbitListener}
     * resolves its queue names.
     */
    private String embedded(String value) {
        String resolved = placeholders(value);
        BeanExpressionResolver expressions = beanFactory == null ? null : beanFactory.getBeanExpressionResolver();
        if (expressions == null || resolved.isEmpty()) {
            return resolved;
        }
        Object evaluated = expressions.evaluate(resolved, new BeanExpressionContext(beanFactory, null));
        return evaluated == null ? "" : evaluated.toString();
    }

    /** Placeholders only: the key is itself a SpEL expression, evaluated on each message. */
    private String placeholders(String value) {
        if (beanFactory == null || value.isEmpty()) {
            return value;
        }
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? "" : resolved;
    }

    @Override
    public void afterSingletonsInstantiated() {
        OnceAdvice target = advice.get();
        found.forEach((queue, once) -> {
            try {
                target.register(queue, config(target.defaults(), once));
            } catch (IllegalArgumentException e) {
                // A resolved value the settings refuse: say which listener and what it resolved from.
                throw new IllegalStateException("@Once on the listener of queue " + queue + " is invalid: "
                        + e.getMessage() + " (from " + once + ")", e);
            }
        });
        if (beanFactory instanceof ListableBeanFactory beans) {
            target.containers(() -> containers(beans));
        }
    }

    ConsumerConfig config(ConsumerConfig defaults, Once once) {
        ConsumerConfig.Builder b = ConsumerConfig.from(defaults);
        String namespace = embedded(once.namespace());
        if (StringUtils.hasText(namespace)) {
            b.namespace(namespace);
        }
        String header = embedded(once.header());
        String field = embedded(once.field());
        int keys = (once.key().isEmpty() ? 0 : 1) + (header.isEmpty() ? 0 : 1) + (field.isEmpty() ? 0 : 1);
        if (keys > 1) {
            throw new IllegalStateException("@Once takes at most one of key, header and field, but had " + once);
        }
        KeyExtractor extractor = !once.key().isEmpty() ? MessageKeys.expression(placeholders(once.key()),
                converter.get())
                : !header.isEmpty() ? KeyExtractor.header(header)
                : !field.isEmpty() ? KeyExtractor.jsonBody(field) // the raw body, whatever the converter
                : null;
        if (extractor != null) {
            b.keyExtractor(extractor);
        }
        return b.build();
    }

    private static Collection<AbstractMessageListenerContainer> containers(ListableBeanFactory beans) {
        List<AbstractMessageListenerContainer> all = new ArrayList<>(
                beans.getBeansOfType(AbstractMessageListenerContainer.class, false, false).values());
        for (RabbitListenerEndpointRegistry registry
                : beans.getBeansOfType(RabbitListenerEndpointRegistry.class, false, false).values()) {
            for (MessageListenerContainer c : registry.getListenerContainers()) {
                if (c instanceof AbstractMessageListenerContainer container && !all.contains(container)) {
                    all.add(container);
                }
            }
        }
        return all;
    }

    @Override
    public void start() {
        if (!running) {
            running = true;
            advice.get().holdBackWhileStoreIsDown();
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
