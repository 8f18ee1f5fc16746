package io.github.once;

import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
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

    /** The hand-written namespace check accepts exactly what the documented pattern does, 1 to 64 characters. */
    @Test
    void namespacesAreAcceptedExactlyWhenTheyMatchThePattern() {
        java.util.regex.Pattern documented = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
        List<String> names = new ArrayList<>(List.of("a", "A.b_c-d", "9", ".a", "-a", "_a", "a b", "a:b", "a/b",
                "\u00e9", "a\u00e9", "n".repeat(64), "n".repeat(65), "a\u0000", "Z9.-_"));
        Random random = new Random(11);
        String alphabet = "aZ09._-:/ \u00e9{}";
        for (int n = 0; n < 5_000; n++) {
            StringBuilder name = new StringBuilder();
            for (int i = 1 + random.nextInt(6); i > 0; i--) {
                name.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            names.add(name.toString());
        }
        int accepted = 0;
        for (String name : names) {
            boolean valid;
            try {
                IdempotencyKey.of(name, "1");
                valid = true;
                accepted++;
            } catch (IllegalArgumentException e) {
                valid = false;
            }
            assertThat(valid).as("namespace '%s'", name).isEqualTo(documented.matcher(name).matches());
        }
        assertThat(accepted).isBetween(10, names.size() - 10);
    }

    /** The hand count agrees with the JDK's strict encoder on every kind of text, and refuses lone surrogates. */
    @Test
    void utf8LengthMatchesTheJdkEncoderAndRefusesLoneSurrogates() throws Exception {
        List<String> texts = new ArrayList<>(List.of("", "a", "\u007f", "\u0080", "\u07ff", "\u0800", "\uffff",
                "\uD83D\uDE00", "x\uD83D\uDE00y", "\u00e9".repeat(101)));
        Random random = new Random(7);
        for (int n = 0; n < 2_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                text.append((char) random.nextInt(0x10000));
            }
            texts.add(text.toString());
        }
        int refused = 0;
        for (String text : texts) {
            int expected;
            try {
                expected = StandardCharsets.UTF_8.newEncoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .encode(CharBuffer.wrap(text)).remaining();
            } catch (CharacterCodingException e) {
                expected = -1;
                refused++;
            }
            assertThat(IdempotencyKey.wellFormedUtf8Length(text)).as("UTF-8 length of %s", text.chars().boxed()
                    .map(Integer::toHexString).toList()).isEqualTo(expected);
        }
        assertThat(refused).as("texts with a lone surrogate among the random ones").isPositive();
        assertThat(IdempotencyKey.wellFormedUtf8Length("bad\uD800")).isEqualTo(-1);
        assertThat(IdempotencyKey.wellFormedUtf8Length("\uDC00bad")).isEqualTo(-1);
    }
}
