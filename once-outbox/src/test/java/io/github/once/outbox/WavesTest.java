package io.github.once.outbox;

import com.rabbitmq.client.AMQP;

import io.github.once.outbox.internal.ClaimedRow;
import io.github.once.outbox.internal.Waves;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WavesTest {

    @Test
    void unorderedTheWholeBatchIsOneWave() {
        List<ClaimedRow> batch = List.of(row(1, "a"), row(2, "a"), row(3, null));
        assertThat(Waves.of(batch, false)).containsExactly(batch);
        assertThat(Waves.of(List.of(), false)).isEmpty();
    }

    @Test
    void orderedEachWaveHoldsTheNextRowOfEachAggregate() {
        ClaimedRow a1 = row(1, "a");
        ClaimedRow b1 = row(2, "b");
        ClaimedRow a2 = row(3, "a");
        ClaimedRow free = row(4, null);
        ClaimedRow a3 = row(5, "a");
        ClaimedRow b2 = row(6, "b");
        assertThat(Waves.of(List.of(a1, b1, a2, free, a3, b2), true))
                .containsExactly(List.of(a1, b1, free), List.of(a2, b2), List.of(a3));
    }

    static ClaimedRow row(long id, String aggregate) {
        return new ClaimedRow(id, "m-" + id, "", "q", new AMQP.BasicProperties(), new byte[0], aggregate, 0,
                Duration.ZERO);
    }
}
