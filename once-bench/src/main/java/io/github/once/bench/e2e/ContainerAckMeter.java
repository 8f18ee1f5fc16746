package io.github.once.bench.e2e;

import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URISyntaxException;
import java.security.GeneralSecurityException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeoutException;

import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.amqp.core.Message;

/**
 * Times a Spring container's messages as the other variants are timed: from the delivery in hand to its ack
 * written. The container acks (AUTO, one message at a time) on the thread that ran the listener, right after the
 * advice chain returns, so the outermost advice leaves the delivery time on that thread and the channel's
 * {@code basicAck} picks it up once the ack is written.
 */
final class ContainerAckMeter {

    private static final long NONE = -1;

    private final Meter meter;
    /** The message whose listener call returned on this container thread and awaits its ack: {tag, delivered}. */
    private final ThreadLocal<long[]> awaitingAck = ThreadLocal.withInitial(() -> new long[] {NONE, 0});

    ContainerAckMeter(Meter meter) {
        this.meter = meter;
    }

    /**
     * The outermost advice: the container has the message in hand when the chain starts. A throw would send the
     * message back, which no run should see: it ends the run.
     */
    MethodInterceptor advice() {
        return invocation -> {
            Message message = (Message) invocation.getArguments()[1];
            long delivered = meter.delivered(Integer.parseInt(message.getMessageProperties().getMessageId()));
            long tag = message.getMessageProperties().getDeliveryTag();
            Object result;
            try {
                result = invocation.proceed();
            } catch (Throwable t) {
                meter.fail("the listener call threw " + t);
                throw t;
            }
            long[] slot = awaitingAck.get();
            slot[0] = tag;
            slot[1] = delivered;
            return result;
        };
    }

    /** A RabbitMQ connection factory for the container, whose channels report each ack once it is written. */
    ConnectionFactory rabbitConnectionFactory(String amqpUri) {
        ConnectionFactory factory = new ConnectionFactory() {
            @Override
            public Connection newConnection(ExecutorService executor, AddressResolver addressResolver,
                                            String clientProvidedName) throws IOException, TimeoutException {
                Connection connection = super.newConnection(executor, addressResolver, clientProvidedName);
                return proxy(Connection.class, connection, (method, args, result) ->
                        result instanceof Channel channel ? proxy(Channel.class, channel, this::afterChannelCall) : result);
            }

            private Object afterChannelCall(Method method, Object[] args, Object result) {
                if (method.getName().equals("basicAck")) {
                    acked((Long) args[0]);
                }
                return result;
            }
        };
        try {
            factory.setUri(amqpUri);
        } catch (URISyntaxException | GeneralSecurityException e) {
            throw new IllegalArgumentException("amqp URI " + amqpUri + " is not usable", e);
        }
        // Spring's container recovers by itself, as its own connection factories set it.
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    private void acked(long tag) {
        long[] slot = awaitingAck.get();
        if (slot[0] != tag) {
            meter.fail("the container acked tag " + tag + ", but the last listener call on its thread was for tag "
                    + slot[0]);
            return;
        }
        slot[0] = NONE;
        meter.acked(slot[1]);
    }

    /** What a proxy does with a call's result, after the call went to the real object. */
    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result);
    }

    private static <T> T proxy(Class<T> type, T target, After after) {
        InvocationHandler handler = (proxy, method, args) -> {
            // Identity, not the target's: Spring keeps channels in collections.
            if (method.getName().equals("equals") && method.getParameterCount() == 1) {
                return proxy == args[0];
            }
            if (method.getName().equals("hashCode") && method.getParameterCount() == 0) {
                return System.identityHashCode(proxy);
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, args, result);
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
