package io.github.once;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdempotencyConfigTest {

    @Test
    void defaultsAreTheSeedsValues() {
        IdempotencyConfig config = IdempotencyConfig.defaults();
        assertThat(config.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.retention()).isEqualTo(Duration.ofHours(24));
        assertThat(config.fingerprint()).isEqualTo(PayloadFingerprint.SHA_256);
    }

    @Test
    void fromCopiesThenOverrides() {
        IdempotencyConfig base = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(5)).build();
        IdempotencyConfig derived = IdempotencyConfig.from(base).retention(Duration.ofHours(1)).build();
        assertThat(derived.leaseDuration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(derived.retention()).isEqualTo(Duration.ofHours(1));
        assertThat(base.retention()).isEqualTo(Duration.ofHours(24));
    }

    @Test
    void badValuesNameTheSetting() {
        assertThatThrownBy(() -> IdempotencyConfig.builder().leaseDuration(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseDuration");
        assertThatThrownBy(() -> IdempotencyConfig.builder().retention(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention");
    }
}
