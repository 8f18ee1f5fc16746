package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.ConnectionFactory;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.embedded.EmbeddedBroker;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The demo's verdict can fail: a Once row over a store that remembers nothing shows duplicates and exit 1. */
class BrokenStoreTest {

    /** Grants every claim and forgets every completion: no protection at all. */
    private static final class ForgetfulStore implements IdempotencyStore {
        private final AtomicLong tokens = new AtomicLong();

        @Override
        public List<ClaimResult> claim(List<ClaimRequest> requests) {
            List<ClaimResult> granted = new ArrayList<>();
            for (ClaimRequest request : requests) {
                granted.add(new ClaimResult.Acquired(new Lease(request.key(), tokens.incrementAndGet(),
                        Instant.now().plus(request.leaseDuration()))));
            }
            return granted;
        }

        @Override
        public List<Boolean> complete(List<Completion> completions) {
            return Collections.nCopies(completions.size(), true);
        }

        @Override
        public boolean release(Lease lease) {
            return true;
        }

        @Override
        public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
            return Optional.of(lease);
        }

        @Override
        public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
            return Collections.nCopies(keys.size(), Optional.empty());
        }
    }

    @Test
    void aOnceRowOverAForgetfulStoreFailsTheDemo() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.start()) {
            ConnectionFactory amqp = new ConnectionFactory();
            amqp.setUri(broker.uri());
            amqp.setAutomaticRecoveryEnabled(false);
            OnceStyle forgetful = OnceStyle.withStore("forgetful", new ForgetfulStore(), OnceStyle.retryFor(true));

            MatrixResult result = Matrix.run("f0f0f0", List.of(forgetful), amqp, "embedded", List.of(), 4, n -> { });

            RowResult row = result.rows().get(0);
            CellResult resend = row.cells().get(Scenario.PRODUCER_RESEND.ordinal());
            assertThat(resend.effects()).isEqualTo(2);
            assertThat(resend.duplicates()).isEqualTo(1);
            assertThat(row.cells().get(Scenario.ACK_LOST.ordinal()).duplicates()).isEqualTo(1);
            assertThat(result.onceFailures()).containsExactly(row);
            assertThat(DemoCommand.exitCode(result)).isEqualTo(ExitCodes.ONCE_FAILED);
        }
    }
}
