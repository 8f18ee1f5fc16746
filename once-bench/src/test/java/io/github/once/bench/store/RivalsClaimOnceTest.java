package io.github.once.bench.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.bench.Services;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every rival of the store benchmark, against the real local services, takes a new key once and answers
 * duplicate for it afterwards, one key at a time and in batches: the benchmark compares working setups, not
 * misconfigured ones. Runs no benchmark.
 */
class RivalsClaimOnceTest {

    // Once's in-memory rival forgets keys after a second in the benchmark (it would fill up otherwise), which a
    // stalled test run can outlast: it is checked below with a longer retention.
    @ParameterizedTest
    @EnumSource(value = Rival.class, mode = EnumSource.Mode.EXCLUDE, names = "ONCE_MEMORY")
    void claimsEachKeyOnce(Rival rival) {
        try (RepositoryUnderTest repository = rival.open(Services.local())) {
            claimsEachKeyOnce(repository);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Rival.class, mode = EnumSource.Mode.EXCLUDE, names = "ONCE_MEMORY")
    void claimsEachKeyOfABatchOnce(Rival rival) {
        try (RepositoryUnderTest repository = rival.open(Services.local())) {
            claimsEachKeyOfABatchOnce(repository);
        }
    }

    @Test
    void onceMemoryClaimsEachKeyOnceAloneAndInBatches() {
        try (RepositoryUnderTest repository = Rival.onceMemory(Duration.ofMinutes(10))) {
            claimsEachKeyOnce(repository);
            claimsEachKeyOfABatchOnce(repository);
        }
    }

    private static void claimsEachKeyOnce(RepositoryUnderTest repository) {
        assertThat(repository.claimAndComplete("order-1")).as("first delivery of order-1").isTrue();
        assertThat(repository.claimAndComplete("order-1")).as("redelivery of order-1").isFalse();
        assertThat(repository.claimAndComplete("order-2")).as("first delivery of order-2").isTrue();
        assertThat(repository.claimAndComplete("order-2")).as("redelivery of order-2").isFalse();
    }

    private static void claimsEachKeyOfABatchOnce(RepositoryUnderTest repository) {
        assertThat(repository.claimAndCompleteAll(List.of("b-1", "b-2", "b-3"))).as("a new batch").isEqualTo(3);
        assertThat(repository.claimAndCompleteAll(List.of("b-1", "b-2", "b-3"))).as("the batch again").isZero();
        assertThat(repository.claimAndCompleteAll(List.of("b-3", "b-4"))).as("one old key, one new").isEqualTo(1);
        assertThat(repository.claimAndComplete("b-4")).as("a key of a batch, alone").isFalse();
    }
}
