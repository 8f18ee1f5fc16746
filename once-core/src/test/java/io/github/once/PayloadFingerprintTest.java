package io.github.once;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadFingerprintTest {

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sha256IsTheHexDigestOfTheBytesAndNoneIsNull() {
        assertThat(PayloadFingerprint.SHA_256.of(body("abc")))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(PayloadFingerprint.NONE.of(body("abc"))).isNull();
        assertThat(IdempotencyConfig.defaults().toString()).contains("fingerprint=SHA_256");
    }

    @Test
    void aSuppliedFingerprintDecidesWhatCountsAsOtherContent() {
        // Case-insensitive content: "A" and "a" are the same payload, "b" is another.
        PayloadFingerprint caseBlind = payload -> PayloadFingerprint.SHA_256.of(
                body(new String(payload, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT)));
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                .config(IdempotencyConfig.builder().fingerprint(caseBlind).build()).build()) {
            IdempotencyKey key = IdempotencyKey.of("orders", "m-1");
            once.execute(key, body("A"), ResultCodec.none(), ctx -> null);

            assertThat(once.execute(key, body("a"), ResultCodec.none(), ctx -> null))
                    .isInstanceOf(Outcome.Duplicate.class);
            assertThat(once.execute(key, body("b"), ResultCodec.none(), ctx -> null))
                    .isInstanceOf(Outcome.Conflict.class);
        }
    }
}
