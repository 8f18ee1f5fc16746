package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.internal.JsonPaths;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static io.github.once.rabbitmq.KeyExtractor.jsonBody;
import static io.github.once.rabbitmq.KeyExtractorTest.body;
import static io.github.once.rabbitmq.KeyExtractorTest.delivery;
import static io.github.once.rabbitmq.KeyExtractorTest.detail;
import static io.github.once.rabbitmq.KeyExtractorTest.id;
import static org.assertj.core.api.Assertions.assertThat;

/** Whatever the body, extraction ends in an id or a reason, never an exception. */
class KeyExtractorBadInputTest {

    private final KeyExtractor orderId = jsonBody("order_id");

    private static com.rabbitmq.client.Delivery bytes(byte[] body) {
        return delivery(null, null, body);
    }

    @Test
    void aHugeIdIsFoundAndTheKeyLayerDigestsIt() {
        String huge = "o".repeat(100_000);
        String found = id(orderId, body("{\"order_id\":\"" + huge + "\"}"));
        assertThat(found).isEqualTo(huge);
        IdempotencyKey key = IdempotencyKey.of("orders", found);
        assertThat(key.isDigested()).isTrue();
        assertThat(key.storageId()).startsWith(IdempotencyKey.DIGEST_PREFIX).hasSize(71);
        // A number literal past the read limit is not JSON to Once.
        assertThat(detail(orderId, body("{\"order_id\":" + "9".repeat(JsonPaths.MAX_NUMBER_LENGTH + 1) + "}")))
                .startsWith("body is not JSON: Number value length (1001) exceeds the maximum allowed (1000");
    }

    @Test
    void idsWithControlCharactersOrLoneSurrogatesAreFoundAndDigested() {
        String nul = id(orderId, body("{\"order_id\":\"a\\u0000b\"}"));
        assertThat(nul).isEqualTo("a\u0000b");
        assertThat(IdempotencyKey.of("orders", nul).isDigested()).isTrue();
        String surrogate = id(orderId, body("{\"order_id\":\"x\\ud800\"}"));
        assertThat(surrogate).isEqualTo("x\ud800");
        assertThat(IdempotencyKey.of("orders", surrogate).isDigested()).isTrue();
        // A raw control character inside a string is not JSON.
        assertThat(detail(orderId, body("{\"order_id\":\"a\u0001b\"}"))).startsWith("body is not JSON: ");
    }

    @Test
    void aHugeBodyIsSkippedThroughAndNeedNotBeReadPastTheId() {
        String filler = "{\"n\":[" + "1,".repeat(2_000_000) + "1],\"s\":\"" + "x".repeat(2_000_000) + "\"}";
        assertThat(id(orderId, body("{\"filler\":" + filler + ",\"order_id\":\"late\"}"))).isEqualTo("late");
        assertThat(id(orderId, body("{\"order_id\":\"early\",\"filler\":" + filler + "}"))).isEqualTo("early");
        assertThat(detail(orderId, body("{\"filler\":" + filler + "}"))).isEqualTo("body field order_id is absent");
    }

    @Test
    void deepNestingIsNotJsonUnlessTheIdComesFirst() {
        int deep = 100_000;
        String nested = "[".repeat(deep) + "]".repeat(deep);
        assertThat(detail(orderId, body("{\"x\":" + nested + ",\"order_id\":1}")))
                .startsWith("body is not JSON: Document nesting depth (" + (JsonPaths.MAX_NESTING_DEPTH + 1)
                        + ") exceeds the maximum allowed (" + JsonPaths.MAX_NESTING_DEPTH);
        assertThat(id(orderId, body("{\"order_id\":1,\"x\":" + nested + "}"))).isEqualTo("1");
        // Within the limit, depth is no trouble.
        int fine = JsonPaths.MAX_NESTING_DEPTH - 2;
        assertThat(id(orderId, body("{\"x\":" + "[".repeat(fine) + "]".repeat(fine) + ",\"order_id\":2}")))
                .isEqualTo("2");
    }

    @Test
    void aBodyThatIsNotUtf8IsNotJsonButUtf16AndABomAreRead() throws Exception {
        byte[] latin1 = "{\"order_id\":\"café\"}".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(detail(orderId, bytes(latin1))).startsWith("body is not JSON: Invalid UTF-8 middle byte 0x22");
        // JSON may come as UTF-16 or UTF-32 too (RFC 4627); Jackson tells them from the first bytes.
        assertThat(id(orderId, bytes("{\"order_id\":\"café\"}".getBytes(StandardCharsets.UTF_16)))).isEqualTo("café");
        ByteArrayOutputStream bom = new ByteArrayOutputStream();
        bom.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bom.write("{\"order_id\":\"café\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(id(orderId, bytes(bom.toByteArray()))).isEqualTo("café");
    }

    @Test
    void randomBytesAndBrokenBodiesEndInAnIdOrAReasonNeverAnException() {
        Random random = new Random(17);
        KeyExtractor keys = KeyExtractor.messageId().orElse(jsonBody("order_id", "/order/id", "/items/0"));
        String[] pieces = {"{", "}", "[", "]", ",", ":", "\"order_id\"", "\"order\"", "\"id\"", "\"items\"", "1",
                "-0.5e3", "null", "true", "\"x\"", " ", "\\", "\"", "\u0000", "é", "1e99999999999"};
        for (int i = 0; i < 5_000; i++) {
            byte[] body;
            if (i % 2 == 0) {
                body = new byte[random.nextInt(64)];
                random.nextBytes(body);
            } else {
                StringBuilder text = new StringBuilder();
                for (int n = random.nextInt(30); n > 0; n--) {
                    text.append(pieces[random.nextInt(pieces.length)]);
                }
                body = text.toString().getBytes(StandardCharsets.UTF_8);
            }
            KeyExtractor.Lookup lookup = keys.lookup(bytes(body));
            assertThat(lookup).isNotNull();
            if (lookup instanceof KeyExtractor.Lookup.Missing missing) {
                assertThat(missing.detail()).startsWith("message_id property is absent; ");
            }
        }
    }
}
