package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.Outcome;
import io.github.once.PayloadFingerprint;
import io.github.once.ResultCodec;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonFingerprintTest {

    private final JsonFingerprint orderAndAmount = JsonFingerprint.fields("/order_id", "/amount");

    private static byte[] json(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private String of(String body) {
        return orderAndAmount.of(json(body));
    }

    @Test
    void fieldOrderWhitespaceAndOtherFieldsDoNotChangeIt() {
        String first = of("{\"order_id\":42,\"amount\":\"9.99\",\"sent_at\":\"2024-01-01T00:00:00Z\"}");
        assertThat(first).matches("[0-9a-f]{64}");
        assertThat(of("{ \"sent_at\" : \"2024-01-01T00:05:00Z\",\n \"amount\" : \"9.99\", \"order_id\" : 42 }"))
                .isEqualTo(first);
        assertThat(of("{\"amount\":\"9.99\",\"order_id\":42,\"retry\":true,\"trace\":{\"id\":\"t-2\"}}"))
                .isEqualTo(first);
        assertThat(of("{\"order_id\":42.0,\"amount\":\"9.99\"}")).isEqualTo(first);
    }

    @Test
    void aChangedChosenFieldChangesIt() {
        String first = of("{\"order_id\":42,\"amount\":\"9.99\"}");
        assertThat(of("{\"order_id\":42,\"amount\":\"10.00\"}")).isNotEqualTo(first);
        assertThat(of("{\"order_id\":43,\"amount\":\"9.99\"}")).isNotEqualTo(first);
        // Another type is other content, and so is a null where there was no field.
        assertThat(of("{\"order_id\":\"42\",\"amount\":\"9.99\"}")).isNotEqualTo(first);
        assertThat(of("{\"order_id\":42}")).isNotEqualTo(of("{\"order_id\":42,\"amount\":null}"));
        assertThat(of("{\"order_id\":42}")).isNotEqualTo(of("{\"amount\":42}"));
    }

    @Test
    void chosenObjectsAreCanonicalInsideToo() {
        JsonFingerprint order = JsonFingerprint.fields("order");
        String first = order.of(json("{\"order\":{\"id\":1,\"lines\":[{\"sku\":\"a\",\"qty\":2}]}}"));
        assertThat(order.of(json("{\"order\":{\"lines\":[{\"qty\":2.0,\"sku\":\"a\"}],\"id\":1},\"at\":5}")))
                .isEqualTo(first);
        // Array order is content.
        assertThat(order.of(json("{\"order\":{\"lines\":[{\"sku\":\"a\"},{\"sku\":\"b\"}]}}")))
                .isNotEqualTo(order.of(json("{\"order\":{\"lines\":[{\"sku\":\"b\"},{\"sku\":\"a\"}]}}")));
        assertThat(JsonFingerprint.fields("/order/id").of(json("{\"order\":{\"id\":1,\"x\":2}}")))
                .isEqualTo(JsonFingerprint.fields("/order/id").of(json("{\"order\":{\"x\":3,\"id\":1}}")));
    }

    @Test
    void aBodyThatIsNotJsonIsFingerprintedByItsBytes() {
        assertThat(of("not json")).isEqualTo(PayloadFingerprint.SHA_256.of(json("not json")));
        assertThat(orderAndAmount.of(new byte[0])).isEqualTo(PayloadFingerprint.SHA_256.of(new byte[0]));
        // Read only up to the chosen fields: what follows them does not matter.
        assertThat(of("{\"order_id\":42,\"amount\":\"9.99\", broken"))
                .isEqualTo(of("{\"order_id\":42,\"amount\":\"9.99\"}"));
        assertThat(orderAndAmount).hasToString("JsonFingerprint.fields(/order_id, /amount)");
        assertThatThrownBy(() -> JsonFingerprint.fields("/a", "/a/b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aReSendWithANewTimestampIsADuplicateNotAConflict() {
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                .config(IdempotencyConfig.builder().fingerprint(orderAndAmount).build()).build()) {
            IdempotencyKey key = IdempotencyKey.of("orders", "42");
            once.execute(key, json("{\"order_id\":42,\"amount\":\"9.99\",\"sent_at\":1}"), ResultCodec.none(),
                    ctx -> null);

            Outcome<Void> resent = once.execute(key, json("{\"sent_at\":2,\"amount\":\"9.99\",\"order_id\":42}"),
                    ResultCodec.none(), ctx -> null);
            Outcome<Void> changed = once.execute(key, json("{\"order_id\":42,\"amount\":\"19.99\",\"sent_at\":3}"),
                    ResultCodec.none(), ctx -> null);

            assertThat(resent).isInstanceOf(Outcome.Duplicate.class);
            assertThat(changed).isInstanceOf(Outcome.Conflict.class);
        }
    }
}
