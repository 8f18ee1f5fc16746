package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;

import io.github.once.spring.rabbit.Once;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.springframework.amqp.core.Address;
import org.springframework.util.ClassUtils;

/**
 * The channel a listener method's reply goes through, holding that reply back: Spring AMQP publishes a
 * {@code @RabbitListener}'s return value to {@code reply_to} on the listener's channel; Once records it as the
 * message's result first, then sends it (and sends it again to a duplicate request).
 */
public final class ReplyCapture {
    private final Address replyTo;
    private volatile StoredReply reply;

    private ReplyCapture(Address replyTo) {
        this.replyTo = replyTo;
    }

    /** The channel to hand to the listener instead of {@code channel}; itself when there is no {@code reply_to}. */
    public static ReplyCapture forReplyTo(String replyTo) {
        return new ReplyCapture(replyTo == null || replyTo.isEmpty() ? null : new Address(replyTo));
    }

    public Channel wrap(Channel channel) {
        if (replyTo == null) {
            return channel;
        }
        Class<?>[] interfaces = ClassUtils.getAllInterfacesForClass(channel.getClass(), getClass().getClassLoader());
        return (Channel) Proxy.newProxyInstance(getClass().getClassLoader(), interfaces,
                (proxy, method, args) -> publishOrForward(channel, method, args));
    }

    /** The reply the listener sent, encoded for the store; null when it sent none. */
    public byte[] encoded() {
        StoredReply r = reply;
        return r == null ? null : r.encode();
    }

    private Object publishOrForward(Channel channel, Method method, Object[] args) throws Throwable {
        if (method.getName().equals("basicPublish") && args.length >= 4 && isReply(args)) {
            reply = new StoredReply((AMQP.BasicProperties) args[args.length - 2], (byte[]) args[args.length - 1]);
            return null;
        }
        try {
            return method.invoke(channel, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private boolean isReply(Object[] args) {
        String exchange = args[0] == null ? "" : args[0].toString();
        return exchange.equals(nullToEmpty(replyTo.getExchangeName()))
                && nullToEmpty(replyTo.getRoutingKey()).equals(args[1])
                && args[args.length - 2] instanceof AMQP.BasicProperties;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
