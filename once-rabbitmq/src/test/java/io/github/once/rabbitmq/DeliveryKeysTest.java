package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.internal.DeliveryKey;
import io.github.once.rabbitmq.internal.DeliveryKeys;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A delivery's key is found with one run of the extractor, whatever the result. */
class DeliveryKeysTest {

    private final AtomicInteger extractions = new AtomicInteger();

    private KeyExtractor counted(KeyExtractor extractor) {
        return new KeyExtractor() {
            @Override
            public Optional<String> extract(Delivery d) {
                extractions.incrementAndGet();
                return extractor.extract(d);
            }

            @Override
            public KeyExtractor.Lookup lookup(Delivery d) {
                extractions.incrementAndGet();
                return extractor.lookup(d);
            }
        };
    }

    private static Delivery delivery(String messageId, String body) {
        return new Delivery(new Envelope(1, false, "", "q"),
                new AMQP.BasicProperties.Builder().messageId(messageId).build(), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aKeyFromTheJsonBodyTakesOneParse() {
        DeliveryKeys keys = new DeliveryKeys(counted(KeyExtractor.messageId().orElse(KeyExtractor.jsonBody())),
                d -> "orders");
        assertThat(keys.resolve(delivery(null, "{\"id\":42}")))
                .isEqualTo(new DeliveryKey.Keyed(IdempotencyKey.of("orders", "42")));
        assertThat(extractions.get()).isEqualTo(1);
    }

    @Test
    void noIdIsAMissingKeyFoundWithOneExtraction() {
        DeliveryKeys keys = new DeliveryKeys(counted(KeyExtractor.messageId()), d -> "orders");
        assertThat(keys.resolve(delivery(null, "{}")))
                .isEqualTo(new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "message_id property is absent"));
        assertThat(extractions.get()).isEqualTo(1);
    }

    @Test
    void anExtractorThatThrowsFindsNoKey() {
        DeliveryKeys keys = new DeliveryKeys(counted(d -> {
            throw new IllegalStateException("broken extractor");
        }), d -> "orders");
        assertThat(keys.resolve(delivery("m-1", ""))).isEqualTo(new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY,
                "key extractor failed: java.lang.IllegalStateException: broken extractor"));
        assertThat(extractions.get()).isEqualTo(1);
    }

    @Test
    void anIdInANamespaceThatBreaksTheKeyRulesIsAnInvalidKey() {
        DeliveryKeys badNamespace = new DeliveryKeys(counted(KeyExtractor.messageId()), d -> "bad namespace");
        assertThat(badNamespace.resolve(delivery("m-1", ""))).isInstanceOfSatisfying(DeliveryKey.Keyless.class, k -> {
            assertThat(k.reason()).isEqualTo(DeadLetterReason.INVALID_KEY);
            assertThat(k.detail()).contains("bad namespace");
        });
        DeliveryKeys throwingNamespace = new DeliveryKeys(counted(d -> Optional.of("m-1")), d -> {
            throw new IllegalStateException("no type property");
        });
        assertThat(throwingNamespace.resolve(delivery("m-1", "")))
                .isEqualTo(new DeliveryKey.Keyless(DeadLetterReason.INVALID_KEY, "no type property"));
        assertThat(extractions.get()).isEqualTo(2);
    }

    @Test
    void keyOrNull() {
        assertThat(new DeliveryKey.Keyed(IdempotencyKey.of("q", "a")).keyOrNull()).isEqualTo(IdempotencyKey.of("q", "a"));
        assertThat(new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "why").keyOrNull()).isNull();
    }

    @Test
    void aMissingJsonFieldSaysWhichAndHow() {
        DeliveryKeys keys = new DeliveryKeys(KeyExtractor.jsonBody("order_id"), d -> "orders");
        assertThat(keys.resolve(delivery(null, "{\"order_id\":null}")))
                .isEqualTo(new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "body field order_id is null"));
    }
}
