package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import static io.github.once.rabbitmq.KeyExtractor.header;
import static io.github.once.rabbitmq.KeyExtractor.jsonBody;
import static io.github.once.rabbitmq.KeyExtractor.messageId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyExtractorTest {

    static Delivery delivery(String messageId, Map<String, Object> headers, byte[] body) {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(messageId).headers(headers).build();
        return new Delivery(new Envelope(1, false, "", "q"), props, body == null ? new byte[0] : body);
    }

    static Delivery delivery(String messageId, Map<String, Object> headers, String body) {
        return delivery(messageId, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    static Delivery body(String body) {
        return delivery(null, null, body);
    }

    /** The detail of a lookup that must be missing. */
    static String detail(KeyExtractor keys, Delivery delivery) {
        KeyExtractor.Lookup lookup = keys.lookup(delivery);
        assertThat(lookup).isInstanceOf(KeyExtractor.Lookup.Missing.class);
        assertThat(keys.extract(delivery)).isEmpty();
        return ((KeyExtractor.Lookup.Missing) lookup).detail();
    }

    /** The id of a lookup that must be found, checked to agree with {@link KeyExtractor#extract}. */
    static String id(KeyExtractor keys, Delivery delivery) {
        KeyExtractor.Lookup lookup = keys.lookup(delivery);
        assertThat(lookup).isInstanceOf(KeyExtractor.Lookup.Found.class);
        assertThat(keys.extract(delivery)).contains(((KeyExtractor.Lookup.Found) lookup).id());
        return ((KeyExtractor.Lookup.Found) lookup).id();
    }

    private final KeyExtractor usual = messageId().orElse(jsonBody());

    @Test
    void messageIdFirstThenJsonMessageIdThenJsonId() {
        assertThat(usual.extract(delivery("m-1", null, "{\"message_id\":\"b-1\"}"))).contains("m-1");
        assertThat(usual.extract(body("{\"id\":7,\"message_id\":\"b-1\"}"))).contains("b-1");
        assertThat(usual.extract(body("{\"id\":7}"))).contains("7");
        assertThat(usual.extract(delivery("  ", null, "{\"id\":\"x\"}"))).contains("x");
    }

    @Test
    void onlyStringsAndNumbersAtTheFieldsCount() {
        assertThat(usual.extract(body("{\"order\":{\"id\":5}}"))).isEmpty();
        assertThat(usual.extract(body("{\"order\":{\"id\":5},\"id\":\"top\"}"))).contains("top");
        assertThat(usual.extract(body("{\"id\":null}"))).isEmpty();
        assertThat(usual.extract(body("{\"id\":true}"))).isEmpty();
        assertThat(usual.extract(body("{\"id\":[1]}"))).isEmpty();
        assertThat(usual.extract(body("[{\"id\":1}]"))).isEmpty();
        assertThat(usual.extract(body("not json"))).isEmpty();
        assertThat(usual.extract(body("{\"x\": tru, \"id\":\"a\"}"))).isEmpty();
        assertThat(usual.extract(body("{\"id\":\"caf\\u00e9 \\\"q\\\"\"}"))).contains("café \"q\"");
        assertThat(usual.extract(body("{\"tags\":[\"a\",{\"b\":\"}\"}],\"id\":-1.5e3}"))).contains("-1500");
        assertThat(usual.extract(body("{\"id\":\"first\",\"id\":\"second\"}"))).contains("first");
    }

    @Test
    void theBodyIsReadOnlyAsFarAsTheIdIsSettled() {
        // Broken after the id: the id is found without reading on.
        assertThat(id(jsonBody("order_id"), body("{\"order_id\":\"o-1\", this is not json"))).isEqualTo("o-1");
        assertThat(id(usual, body("{\"message_id\":\"a\"} trailing"))).isEqualTo("a");
        // Broken before the id, or before an earlier choice is settled: not JSON.
        assertThat(detail(jsonBody("order_id"), body("{\"x\":, \"order_id\":\"o-1\"}")))
                .startsWith("body is not JSON: ");
        assertThat(detail(usual, body("{\"id\":\"i\", oops")))
                .startsWith("message_id property is absent; body is not JSON");
    }

    @Test
    void missingKeyDetailsSayWhy() {
        KeyExtractor order = jsonBody("order_id");
        assertThat(detail(order, body("xyz"))).isEqualTo("body is not JSON: Unrecognized token 'xyz': was expecting "
                + "(JSON String, Number, Array, Object or token 'null', 'true' or 'false') at 1:1");
        assertThat(detail(order, body("{\"sku\":\"A\"}"))).isEqualTo("body field order_id is absent");
        assertThat(detail(order, body("{\"order_id\":null}"))).isEqualTo("body field order_id is null");
        assertThat(detail(order, body("{\"order_id\":{\"id\":1}}")))
                .isEqualTo("body field order_id is an object, not a string or number");
        assertThat(detail(order, body("{\"order_id\":[1,2]}")))
                .isEqualTo("body field order_id is an array, not a string or number");
        assertThat(detail(order, body("{\"order_id\":false}")))
                .isEqualTo("body field order_id is a boolean, not a string or number");
        assertThat(detail(order, body("{\"order_id\":\"  \"}"))).isEqualTo("body field order_id is blank");
        assertThat(detail(order, body("[1]")))
                .isEqualTo("body field order_id is absent (the body is an array, not an object)");
        assertThat(detail(order, body("\"order\""))).isEqualTo("body field order_id is absent (the body is a string, "
                + "not an object)");
        assertThat(detail(order, body(""))).isEqualTo("body is empty");
        assertThat(detail(order, body(" \n "))).isEqualTo("body is blank");
        assertThat(detail(messageId(), body("{}"))).isEqualTo("message_id property is absent");
        assertThat(detail(messageId(), delivery(" ", null, "{}"))).isEqualTo("message_id property is blank");
    }

    @Test
    void detailsAddUpAcrossOrElse() {
        KeyExtractor keys = messageId().orElse(header("x-key")).orElse(jsonBody("order_id"));
        assertThat(detail(keys, body("{\"sku\":\"A\"}"))).isEqualTo(
                "message_id property is absent; header x-key is absent; body field order_id is absent");
        assertThat(detail(jsonBody(), body("{\"id\":null}")))
                .isEqualTo("body field message_id is absent; body field id is null");
        assertThat(id(keys, delivery(null, Map.of("x-key", "h-1"), "{}"))).isEqualTo("h-1");
        assertThat(keys).hasToString("messageId().orElse(header(x-key)).orElse(jsonBody(order_id))");
    }

    @Test
    void extractorsWrittenAsLambdasGetAGenericDetailAndNeverThrow() {
        KeyExtractor none = delivery -> Optional.empty();
        KeyExtractor blank = delivery -> Optional.of(" ");
        KeyExtractor failing = delivery -> {
            throw new IllegalStateException("boom");
        };
        KeyExtractor typed = delivery -> Optional.ofNullable(delivery.getProperties().getType());

        assertThat(detail(none, body("{}"))).isEqualTo("key extractor found no id");
        assertThat(blank.lookup(body("{}"))).isEqualTo(KeyExtractor.Lookup.missing("key extractor returned a blank id"));
        assertThat(failing.lookup(body("{}")))
                .isEqualTo(KeyExtractor.Lookup.missing("key extractor failed: java.lang.IllegalStateException: boom"));
        assertThat(detail(typed.orElse(messageId()), body("{}")))
                .isEqualTo("key extractor found no id; message_id property is absent");
        assertThat(id(messageId().orElse(typed), new Delivery(new Envelope(1, false, "", "q"),
                new AMQP.BasicProperties.Builder().type("t-1").build(), new byte[0]))).isEqualTo("t-1");
    }

    @Test
    void ownExtractorsCanGiveTheirReasons() {
        KeyExtractor tenant = KeyExtractor.of(delivery -> {
            String app = delivery.getProperties().getAppId();
            return app == null ? KeyExtractor.Lookup.missing("app_id property is absent") : KeyExtractor.Lookup.found(app);
        });
        KeyExtractor failing = KeyExtractor.of(delivery -> {
            throw new IllegalArgumentException("bad");
        });

        assertThat(detail(tenant.orElse(jsonBody("id")), body("{}")))
                .isEqualTo("app_id property is absent; body field id is absent");
        assertThat(detail(failing, body("{}")))
                .isEqualTo("key extractor failed: java.lang.IllegalArgumentException: bad");
        assertThat(detail(KeyExtractor.of(delivery -> null), body("{}"))).isEqualTo("key extractor returned no lookup");
    }

    @Test
    void headerValuesOfAnyTextOrNumberType() {
        KeyExtractor header = header("x-key");
        assertThat(header.extract(delivery(null, Map.of("x-key", "k-1"), (String) null))).contains("k-1");
        assertThat(header.extract(delivery(null, Map.of("x-key", 12L), (String) null))).contains("12");
        assertThat(header.extract(delivery(null, Map.of("x-key", 12.0d), (String) null))).contains("12");
        assertThat(header.extract(delivery(null, Map.of("x-key", "é".getBytes(StandardCharsets.UTF_8)),
                (String) null))).contains("é");
        assertThat(header.extract(delivery(null, Map.of("other", "k"), (String) null))).isEmpty();
        assertThatThrownBy(() -> header(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name");
    }

    @Test
    void headerDetailsNameWhatWasThere() {
        KeyExtractor header = header("x-key");
        assertThat(detail(header, delivery(null, null, "{}"))).isEqualTo("header x-key is absent");
        assertThat(detail(header, delivery(null, Map.of("x-key", true), "{}")))
                .isEqualTo("header x-key is a boolean, not text or a number");
        assertThat(detail(header, delivery(null, Map.of("x-key", Map.of("a", 1)), "{}")))
                .isEqualTo("header x-key is a table, not text or a number");
        assertThat(detail(header, delivery(null, Map.of("x-key", List.of(1)), "{}")))
                .isEqualTo("header x-key is an array, not text or a number");
        assertThat(detail(header, delivery(null, Map.of("x-key", ""), "{}"))).isEqualTo("header x-key is blank");
        assertThat(detail(header, delivery(null, Map.of("x-key", Double.NaN), "{}")))
                .isEqualTo("header x-key is NaN, not a finite number");
        // Bytes that are not UTF-8 are no id: decoding them leniently would merge different ids.
        assertThat(detail(header, delivery(null, Map.of("x-key", new byte[] {(byte) 0xC3, 0x28}), "{}")))
                .isEqualTo("header x-key is bytes that are not UTF-8 text");
    }

    @Test
    void aMissingDetailIsCutSoAHeaderCannotGrowWithTheInput() {
        String longName = "f".repeat(3000);
        String detail = detail(jsonBody(longName), body("{}"));
        assertThat(detail).hasSize(KeyExtractor.Lookup.MAX_DETAIL_LENGTH).endsWith("...");
        assertThatThrownBy(() -> KeyExtractor.Lookup.found(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
