package io.github.once.outbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;

import io.github.once.outbox.internal.PropertiesCodec;

import java.math.BigDecimal;
import java.util.Date;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PropertiesCodecTest {

    @Test
    void everyPropertyAndHeaderTypeComesBackAsWritten() {
        Date when = new Date(1_700_000_000_000L);
        AMQP.BasicProperties p = new AMQP.BasicProperties.Builder()
                .contentType("application/json").contentEncoding("gzip").deliveryMode(2).priority(5)
                .correlationId("c").replyTo("r").expiration("60000").messageId("m").timestamp(when).type("t")
                .userId("guest").appId("app")
                .headers(Map.of("s", "text", "i", 7, "l", 7L, "b", true, "d", new BigDecimal("1.25"),
                        "bytes", new byte[] {1, 2}, "list", List.of(1, "x"), "map", Map.of("k", 1)))
                .build();

        AMQP.BasicProperties back = PropertiesCodec.decode(PropertiesCodec.encode(p));

        assertThat(back.getContentType()).isEqualTo("application/json");
        assertThat(back.getContentEncoding()).isEqualTo("gzip");
        assertThat(back.getDeliveryMode()).isEqualTo(2);
        assertThat(back.getPriority()).isEqualTo(5);
        assertThat(back.getCorrelationId()).isEqualTo("c");
        assertThat(back.getReplyTo()).isEqualTo("r");
        assertThat(back.getExpiration()).isEqualTo("60000");
        assertThat(back.getMessageId()).isEqualTo("m");
        assertThat(back.getTimestamp()).isEqualTo(when);
        assertThat(back.getType()).isEqualTo("t");
        assertThat(back.getUserId()).isEqualTo("guest");
        assertThat(back.getAppId()).isEqualTo("app");
        Map<String, Object> h = back.getHeaders();
        assertThat(((LongString) h.get("s")).toString()).isEqualTo("text");
        assertThat(h.get("i")).isEqualTo(7);
        assertThat(h.get("l")).isEqualTo(7L);
        assertThat(h.get("b")).isEqualTo(true);
        assertThat(h.get("d")).isEqualTo(new BigDecimal("1.25"));
        assertThat((byte[]) h.get("bytes")).containsExactly(1, 2);
        assertThat((List<?>) h.get("list")).hasSize(2);
        assertThat(((Map<?, ?>) h.get("map")).get("k")).isEqualTo(1);
    }

    @Test
    void emptyPropertiesStayEmpty() {
        AMQP.BasicProperties back = PropertiesCodec.decode(PropertiesCodec.encode(new AMQP.BasicProperties()));
        assertThat(back.getMessageId()).isNull();
        assertThat(back.getHeaders()).isNull();
    }
}
