package io.github.once;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdempotencyKeyTest {

    @Test
    void shortPlainIdsAreStoredAsTheyAre() {
        IdempotencyKey key = IdempotencyKey.of("orders", "payment:42");
        assertThat(key.storageId()).isEqualTo("payment:42");
        assertThat(key.isDigested()).isFalse();
        assertThat(IdempotencyKey.of("orders", "\uD83D\uDE00 emoji").storageId()).isEqualTo("\uD83D\uDE00 emoji");
    }

    @Test
    void longControlAndMalformedIdsAreDigested() {
        for (String id : List.of("x".repeat(201), "a\u0000b", "tab\there", "bad\uD800", "\u00e9".repeat(101))) {
            IdempotencyKey key = IdempotencyKey.of("orders", id);
            assertThat(key.isDigested()).as(id).isTrue();
            assertThat(key.storageId()).startsWith(IdempotencyKey.DIGEST_PREFIX).hasSize(71);
        }
        assertThat(IdempotencyKey.of("orders", "\u00e9".repeat(100)).isDigested()).as("200 UTF-8 bytes").isFalse();
    }

    @Test
    void aRawIdCannotPoseAsADigest() {
        IdempotencyKey digested = IdempotencyKey.of("orders", "x".repeat(300));
        IdempotencyKey impostor = IdempotencyKey.of("orders", digested.storageId());

        assertThat(impostor.isDigested()).isTrue();
        assertThat(impostor.storageId()).isNotEqualTo(digested.storageId());
    }

    @Test
    void distinctIdsGiveDistinctStorageIds() {
        List<String> ids = List.of("a", "A", "a ", "x".repeat(300), "x".repeat(299) + "y", "bad\uD800", "bad\uD801",
                "bad\uDC00", "a\u0000", "a\u0001");
        Set<String> stored = new HashSet<>();
        for (String id : ids) {
            stored.add(IdempotencyKey.of("n", id).storageId());
        }
        assertThat(stored).hasSize(ids.size());
    }

    @Test
    void badNamespacesAndEmptyIdsAreRefusedWithTheSettingNamed() {
        assertThatThrownBy(() -> IdempotencyKey.of("", "1")).hasMessageContaining("namespace");
        assertThatThrownBy(() -> IdempotencyKey.of("has space", "1")).hasMessageContaining("has space");
        assertThatThrownBy(() -> IdempotencyKey.of("a:b", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("n".repeat(65), "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("orders", "")).hasMessageContaining("id must not be empty");
        assertThatThrownBy(() -> IdempotencyKey.of("orders", null)).isInstanceOf(NullPointerException.class);
    }
}
