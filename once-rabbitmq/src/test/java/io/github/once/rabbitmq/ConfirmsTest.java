package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.container.Disposition;
import io.github.once.rabbitmq.internal.ConfirmedSender;
import io.github.once.rabbitmq.internal.Confirms;
import io.github.once.rabbitmq.internal.Inbound;
import io.github.once.rabbitmq.internal.Verdict;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting for the confirms of moved copies, with a test clock: deadlines pass without sleeping, and what a
 * multiple ack would cover is known before it is sent.
 */
class ConfirmsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private final TestClock clock = new TestClock();
    private final Confirms confirms = new Confirms(clock, TIMEOUT);

    private static Verdict verdict(long generation, long tag) {
        Delivery d = new Delivery(new Envelope(tag, false, "", "q"), new AMQP.BasicProperties(), new byte[0]);
        return new Verdict(new Inbound(d, generation, null), IdempotencyKey.of("q", "m-" + tag),
                new Disposition.Requeue(new IllegalStateException("unused")));
    }

    private static ConfirmedSender.Pending pending(long tag) {
        return new ConfirmedSender.Pending("m-" + tag, "", "q.once.dlq");
    }

    private static List<Long> tags(List<Confirms.Done> done) {
        return done.stream().map(d -> d.verdict().in().tag()).toList();
    }

    @Test
    void aConfirmedCopyIsReadyWithoutWaiting() {
        ConfirmedSender.Pending p = pending(1);
        confirms.hold(verdict(1, 1), p);
        assertThat(confirms.ready()).isEmpty();
        p.confirmed.complete(null);
        List<Confirms.Done> done = confirms.ready();
        assertThat(tags(done)).containsExactly(1L);
        assertThat(done.get(0).failure()).isNull();
        assertThat(confirms.size()).isZero();
    }

    @Test
    void aRefusedCopyIsReadyWithItsFailure() {
        ConfirmedSender.Pending p = pending(1);
        confirms.hold(verdict(1, 1), p);
        PublishException nack = new PublishException("m-1", "the broker nacked the message");
        p.confirmed.completeExceptionally(nack);
        assertThat(confirms.ready()).singleElement().satisfies(d -> assertThat(d.failure()).isSameAs(nack));
    }

    @Test
    void aCopyWithoutConfirmIsGivenUpWhenItsDeadlinePasses() {
        ConfirmedSender.Pending p = pending(1);
        confirms.hold(verdict(1, 1), p);
        clock.advance(TIMEOUT.minusMillis(1));
        assertThat(confirms.ready()).isEmpty();
        clock.advance(Duration.ofMillis(1));
        List<Confirms.Done> done = confirms.ready();
        assertThat(tags(done)).containsExactly(1L);
        assertThat(done.get(0).failure()).isInstanceOf(PublishException.class)
                .hasMessageContaining("no confirm within PT5S");
        assertThat(p.confirmed).isCompletedExceptionally(); // a late confirm no longer counts
    }

    @Test
    void theDeadlineIsSetOnceWhenTheCopyIsHeld() {
        confirms.hold(verdict(1, 1), pending(1));
        clock.advance(Duration.ofSeconds(3));
        confirms.hold(verdict(1, 2), pending(2));
        clock.advance(Duration.ofSeconds(2));
        assertThat(tags(confirms.ready())).containsExactly(1L);
        clock.advance(Duration.ofSeconds(3));
        assertThat(tags(confirms.ready())).containsExactly(2L);
    }

    @Test
    void aMultipleAckWaitsOnlyForTheHeldCopiesItWouldCover() {
        ConfirmedSender.Pending lowSameChannel = pending(3);
        confirms.hold(verdict(1, 3), lowSameChannel);
        confirms.hold(verdict(1, 9), pending(9)); // a higher tag: not covered
        confirms.hold(verdict(2, 1), pending(1)); // another incarnation: its tags are not this channel's
        lowSameChannel.confirmed.complete(null);

        List<Confirms.Done> done = confirms.awaitCoveredBy(verdict(1, 5).in());
        assertThat(tags(done)).containsExactly(3L);
        assertThat(done.get(0).failure()).isNull();
        assertThat(confirms.size()).isEqualTo(2);
    }

    @Test
    void anOverdueCopyCoveredByAMultipleAckIsSettledAsAFailureFirst() {
        confirms.hold(verdict(1, 3), pending(3));
        clock.advance(TIMEOUT);
        List<Confirms.Done> done = confirms.awaitCoveredBy(verdict(1, 5).in());
        assertThat(tags(done)).containsExactly(3L);
        assertThat(done.get(0).failure()).isInstanceOf(PublishException.class);
    }

    @Test
    void awaitAllSettlesEveryHeldCopyInTheOrderHeld() {
        ConfirmedSender.Pending a = pending(4);
        ConfirmedSender.Pending b = pending(2);
        confirms.hold(verdict(1, 4), a);
        confirms.hold(verdict(2, 2), b);
        a.confirmed.complete(null);
        clock.advance(TIMEOUT); // b never gets its confirm
        List<Confirms.Done> done = confirms.awaitAll();
        assertThat(tags(done)).containsExactly(4L, 2L);
        assertThat(done.get(0).failure()).isNull();
        assertThat(done.get(1).failure()).isInstanceOf(PublishException.class);
        assertThat(confirms.size()).isZero();
    }
}
