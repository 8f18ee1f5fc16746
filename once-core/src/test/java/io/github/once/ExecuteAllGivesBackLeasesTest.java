package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Whatever goes wrong after a batch has claimed its keys, no key it claimed stays busy: a stored result that cannot
 * be decoded is that task's {@code Failed}, and anything escaping the batch first stops the renewals and releases
 * the leases taken so far.
 */
class ExecuteAllGivesBackLeasesTest {

    /** Short, so that a renewal left running would show within a few of them. */
    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final ResultCodec<String> OLD_FORMAT_REFUSED = new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.startsWith("v1:")) {
                throw new IllegalArgumentException("cannot read a result of format v1");
            }
            return text;
        }
    };

    private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
    private final AtomicInteger renewals = new AtomicInteger();
    private Idempotency once = executor(store);

    private Idempotency executor(IdempotencyStore on) {
        return Idempotency.builder(on)
                .config(IdempotencyConfig.builder().leaseDuration(LEASE).build())
                .listener(new OnceListener() {
                    @Override
                    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                        if (operation == OnceListener.StoreOperation.RENEW) {
                            renewals.incrementAndGet();
                        }
                    }
                }).build();
    }

    @AfterEach
    void close() {
        once.close();
    }

    private static IdempotencyKey key(String id) {
        return IdempotencyKey.of("leases", id);
    }

    private static Task<String> task(String id, Handler<String> handler) {
        return new Task<>(key(id), id.getBytes(StandardCharsets.UTF_8), OLD_FORMAT_REFUSED, handler);
    }

    /** What a second consumer's claim of {@code id} answers now. */
    private ClaimResult claimNow(String id) {
        String fingerprint = IdempotencyConfig.defaults().fingerprint().of(id.getBytes(StandardCharsets.UTF_8));
        return OneKey.claim(store, new ClaimRequest(key(id), fingerprint, Duration.ofSeconds(30), Duration.ofHours(1)));
    }

    @Test
    void aLaterDuplicateThatCannotBeDecodedFailsAloneAndTheEarlierKeysAreRecorded() {
        Lease old = ((ClaimResult.Acquired) claimNow("old")).lease();
        OneKey.complete(store, old, "v1:receipt".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1));

        List<Outcome<String>> outcomes = once.executeAll(List.of(
                task("a", ctx -> "ra"), task("b", ctx -> "rb"), task("old", ctx -> "never")));

        assertThat(outcomes.get(0)).isInstanceOf(Outcome.Processed.class);
        assertThat(outcomes.get(1)).isInstanceOf(Outcome.Processed.class);
        assertThat(outcomes.get(2)).isInstanceOf(Outcome.Failed.class);
        assertThat(((Outcome.Failed<String>) outcomes.get(2)).cause()).hasMessageContaining("format v1");
        // Recorded at once: another consumer's claim answers with the stored work, never busy.
        assertThat(OneKey.find(store, key("a")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(claimNow("a")).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(claimNow("b")).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    void anErrorFromALaterHandlerReleasesTheLeasesTakenBeforeIt() {
        Error fatal = new Error("out of memory, say");

        assertThatThrownBy(() -> once.executeAll(List.of(task("c", ctx -> "rc"), task("d", ctx -> "rd"),
                task("e", ctx -> {
                    throw fatal;
                })))).isSameAs(fatal);

        // Released, not left to lapse: a second consumer claims each key at once, before any lease ends; and for
        // two leases on, no renewal of the old leases runs.
        for (String id : List.of("c", "d", "e")) {
            assertThat(claimNow(id)).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
        int renewed = renewals.get();
        await().during(LEASE.multipliedBy(2)).atMost(Duration.ofSeconds(5)).until(() -> renewals.get() == renewed);
    }

    @Test
    void anErrorFromAnEarlyHandlerReleasesTheKeysWhoseHandlersHadNotStarted() {
        Error fatal = new Error("out of memory, say");

        assertThatThrownBy(() -> once.executeAll(List.of(task("h", ctx -> {
            throw fatal;
        }), task("i", ctx -> "ri"), task("j", ctx -> "rj")))).isSameAs(fatal);

        // Claimed with the batch but never run: released too, not left busy until their leases end.
        for (String id : List.of("h", "i", "j")) {
            assertThat(claimNow(id)).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
        int renewed = renewals.get();
        await().during(LEASE.multipliedBy(2)).atMost(Duration.ofSeconds(5)).until(() -> renewals.get() == renewed);
    }

    @Test
    void aLaterKeysLeaseIsRenewedWhileTheHandlersBeforeItRun() {
        java.util.Set<String> renewedKeys = java.util.concurrent.ConcurrentHashMap.newKeySet();
        once.close();
        once = Idempotency.builder(store)
                .config(IdempotencyConfig.builder().leaseDuration(LEASE).build())
                .listener(new OnceListener() {
                    @Override
                    public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
                        if (renewed) {
                            renewedKeys.add(lease.key().id());
                        }
                    }
                }).build();

        // The first handler outlasts the lease and returns only once the second key's lease has been renewed:
        // without renewal from the claim on, it would wait until the await gives up and the batch would fail.
        List<Outcome<String>> outcomes = once.executeAll(List.of(task("slow", ctx -> {
            await().atMost(Duration.ofSeconds(20)).until(() -> renewedKeys.contains("waiting"));
            return "rs";
        }), task("waiting", ctx -> "rw")));

        assertThat(outcomes).allSatisfy(o -> assertThat(o).isInstanceOf(Outcome.Processed.class));
        assertThat(claimNow("waiting")).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    void aStoreFailureRecordingTheCompletionsReleasesTheLeases() {
        once.close();
        once = executor(new FailingCompletions(store));

        assertThatThrownBy(() -> once.executeAll(List.of(task("f", ctx -> "rf"), task("g", ctx -> "rg"))))
                .isInstanceOf(StoreUnavailableException.class);

        assertThat(claimNow("f")).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claimNow("g")).isInstanceOf(ClaimResult.Acquired.class);
    }

    /** The in-memory store, but unreachable when completions are recorded (batches claim one key at a time). */
    private record FailingCompletions(IdempotencyStore store) implements IdempotencyStore {
        @Override
        public List<ClaimResult> claim(List<ClaimRequest> requests) {
            return store.claim(requests);
        }

        @Override
        public List<Boolean> complete(List<Completion> completions) {
            throw new StoreUnavailableException("store went away");
        }

        @Override
        public boolean release(Lease lease) {
            return store.release(lease);
        }

        @Override
        public java.util.Optional<Lease> renew(Lease lease, Duration leaseDuration) {
            return store.renew(lease, leaseDuration);
        }

        @Override
        public List<java.util.Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
            return store.find(keys);
        }
    }
}
