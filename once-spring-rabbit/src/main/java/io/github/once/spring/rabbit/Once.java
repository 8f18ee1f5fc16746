package io.github.once.spring.rabbit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @RabbitListener} method idempotent: each message's effect happens once, duplicates are acked
 * without calling the method. The key is the message's {@code message_id} unless one of {@link #key()},
 * {@link #header()} or {@link #field()} says otherwise (at most one of them). {@link #namespace()},
 * {@link #header()} and {@link #field()} may hold {@code ${...}} placeholders and {@code #{...}} expressions,
 * resolved as {@code @RabbitListener} resolves its queue names; {@link #key()} may hold placeholders. A resolved
 * value that is not valid (a namespace over 64 characters, say) stops the application with an error naming the
 * listener's queue and the attribute.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Once {

    /** The key namespace. Default: the queue name. */
    String namespace() default "";

    /**
     * A SpEL expression giving the id, evaluated on the message: {@code payload} (converted by the application's
     * {@code MessageConverter}), {@code headers}, {@code messageId}, {@code messageProperties}, {@code body}.
     * For example {@code "payload.orderId"} or {@code "headers['x-order-id']"}.
     */
    String key() default "";

    /** The id is this header's value. */
    String header() default "";

    /**
     * The id is this field of the message's JSON body, read from the raw bytes whatever {@code MessageConverter}
     * the listener uses: a top-level name ({@code "order_id"}) or a JSON Pointer ({@code "/order/id"}), as
     * once-rabbitmq's {@code KeyExtractor.jsonBody}. For a payload that is not JSON, use {@link #key()} with
     * {@code payload.<property>}.
     */
    String field() default "";
}
