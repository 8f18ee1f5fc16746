package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** No broker: verdicts decided out of order are handed on in delivery order, only as a run from the oldest. */
class OrderedVerdictsTest {

    private static final Disposition.Action ACK = new Disposition.Ack(ConsumerAction.PROCESSED);
    private static final Disposition.Action DUPLICATE = new Disposition.Ack(ConsumerAction.DUPLICATE);

    private static Inbound delivery(long tag) {
        return new Inbound(new Delivery(new Envelope(tag, false, "", "q"), new AMQP.BasicProperties(), new byte[0]),
                1, null);
    }

    private static List<Long> tags(List<Verdict> verdicts) {
        return verdicts.stream().map(v -> v.in().tag()).toList();
    }

    @Test
    void aLaterVerdictWaitsForEveryEarlierDeliveryAndThenGoesInOrder() {
        OrderedVerdicts line = new OrderedVerdicts();
        OrderedVerdicts.Slot first = line.add(delivery(1), IdempotencyKey.of("q", "a"));
        OrderedVerdicts.Slot second = line.add(delivery(2), IdempotencyKey.of("q", "b"));
        OrderedVerdicts.Slot third = line.add(delivery(3), null);

        line.decide(third, DUPLICATE);
        line.decide(second, DUPLICATE);
        assertThat(line.ready()).as("the oldest has no verdict yet").isEmpty();
        assertThat(line.size()).isEqualTo(3);

        line.decide(first, ACK);
        List<Verdict> ready = line.ready();
        assertThat(tags(ready)).containsExactly(1L, 2L, 3L);
        assertThat(ready.get(0).action()).isSameAs(ACK);
        assertThat(ready.get(2).key()).isNull();
        assertThat(line.size()).isZero();
    }

    @Test
    void theReadyRunStopsAtTheFirstUndecidedDelivery() {
        OrderedVerdicts line = new OrderedVerdicts();
        OrderedVerdicts.Slot first = line.add(delivery(1), null);
        line.add(delivery(2), null);
        OrderedVerdicts.Slot third = line.add(delivery(3), null);
        line.decide(first, ACK);
        line.decide(third, ACK);

        assertThat(tags(line.ready())).containsExactly(1L);
        assertThat(line.ready()).isEmpty();
        assertThat(line.size()).isEqualTo(2);
    }

    @Test
    void aDeliveryIsDecidedOnce() {
        OrderedVerdicts line = new OrderedVerdicts();
        OrderedVerdicts.Slot slot = line.add(delivery(1), IdempotencyKey.of("q", "a"));
        line.decide(slot, ACK);
        assertThatThrownBy(() -> line.decide(slot, DUPLICATE)).isInstanceOf(IllegalStateException.class);
    }
}
