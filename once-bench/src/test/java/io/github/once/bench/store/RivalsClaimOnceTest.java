package io.github.once.bench.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.bench.Services;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every rival of the store benchmark, against the real local services, takes a new key once and answers
 * duplicate for it afterwards: the benchmark compares working setups, not misconfigured ones. Runs no benchmark.
 */
class RivalsClaimOnceTest {

    @ParameterizedTest
    @EnumSource(Rival.class)
    void claimsEachKeyOnce(Rival rival) {
        try (RepositoryUnderTest repository = rival.open(Services.local())) {
            assertThat(repository.claimAndComplete("order-1")).as("first delivery of order-1").isTrue();
            assertThat(repository.claimAndComplete("order-1")).as("redelivery of order-1").isFalse();
            assertThat(repository.claimAndComplete("order-2")).as("first delivery of order-2").isTrue();
            assertThat(repository.claimAndComplete("order-2")).as("redelivery of order-2").isFalse();
        }
    }
}
