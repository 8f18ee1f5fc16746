package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyExtractorTest {

    private static Delivery delivery(String messageId, Map<String, Object> headers, String body) {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(messageId).headers(headers).build();
        return new Delivery(new Envelope(1, false, "", "q"), props,
                body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8));
    }

    private final KeyExtractor seed = KeyExtractor.messageId().orElse(KeyExtractor.jsonBody());

    @Test
    void messageIdFirstThenJsonMessageIdThenJsonId() {
        assertThat(seed.extract(delivery("m-1", null, "{\"message_id\":\"b-1\"}"))).contains("m-1");
        assertThat(seed.extract(delivery(null, null, "{\"id\":7,\"message_id\":\"b-1\"}"))).contains("b-1");
        assertThat(seed.extract(delivery(null, null, "{\"id\":7}"))).contains("7");
        assertThat(seed.extract(delivery("  ", null, "{\"id\":\"x\"}"))).contains("x");
    }

    @Test
    void onlyTopLevelScalarsOfWellFormedObjectsCount() {
        assertThat(seed.extract(delivery(null, null, "{\"order\":{\"id\":5}}"))).isEmpty();
        assertThat(seed.extract(delivery(null, null, "{\"order\":{\"id\":5},\"id\":\"top\"}"))).contains("top");
        assertThat(seed.extract(delivery(null, null, "{\"id\":null}"))).isEmpty();
        assertThat(seed.extract(delivery(null, null, "{\"id\":\"a\"} trailing"))).isEmpty();
        assertThat(seed.extract(delivery(null, null, "[{\"id\":1}]"))).isEmpty();
        assertThat(seed.extract(delivery(null, null, "not json"))).isEmpty();
        assertThat(seed.extract(delivery(null, null, "{\"id\":\"caf\\u00e9 \\\"q\\\"\"}"))).contains("café \"q\"");
        assertThat(seed.extract(delivery(null, null, "{\"tags\":[\"a\",{\"b\":\"}\"}],\"id\":-1.5e3}"))).contains("-1.5e3");
    }

    @Test
    void headerValuesOfAnyTextOrNumberType() {
        KeyExtractor header = KeyExtractor.header("x-key");
        assertThat(header.extract(delivery(null, Map.of("x-key", "k-1"), null))).contains("k-1");
        assertThat(header.extract(delivery(null, Map.of("x-key", 12L), null))).contains("12");
        assertThat(header.extract(delivery(null, Map.of("other", "k"), null))).isEmpty();
        assertThatThrownBy(() -> KeyExtractor.header(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name");
    }
}
