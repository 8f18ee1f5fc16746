package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What only the in-memory store promises: its bound. The shared semantics are in once-testkit's contract run. */
class InMemoryIdempotencyStoreTest {

    private final MutableClock clock = new MutableClock();
    private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().maxRecords(3).clock(clock).build();

    private ClaimResult claim(String id, Duration retention) {
        return OneKey.claim(store, new ClaimRequest(IdempotencyKey.of("n", id), null, Duration.ofSeconds(30), retention));
    }

    @Test
    void whenFullItRefusesNewKeysAndKeepsCompletedOnes() {
        for (String id : new String[] {"a", "b", "c"}) {
            ClaimResult.Acquired a = (ClaimResult.Acquired) claim(id, Duration.ofHours(1));
            OneKey.complete(store, a.lease(), null, Duration.ofHours(1));
        }

        assertThatThrownBy(() -> claim("d", Duration.ofHours(1)))
                .isInstanceOf(StoreFullException.class).hasMessageContaining("3 records");
        for (String id : new String[] {"a", "b", "c"}) {
            assertThat(claim(id, Duration.ofHours(1))).isInstanceOf(ClaimResult.Duplicate.class);
        }
        assertThat(store.size()).isEqualTo(3);
    }

    @Test
    void whenFullItMakesRoomFromExpiredRecordsOnly() {
        ClaimResult.Acquired shortLived = (ClaimResult.Acquired) claim("a", Duration.ofMinutes(1));
        OneKey.complete(store, shortLived.lease(), null, Duration.ofMinutes(1));
        claim("b", Duration.ofHours(1));
        claim("c", Duration.ofHours(1));
        clock.advance(Duration.ofMinutes(2));

        assertThat(claim("d", Duration.ofHours(1))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(OneKey.find(store, IdempotencyKey.of("n", "a"))).isEmpty();
        assertThat(OneKey.find(store, IdempotencyKey.of("n", "b"))).isPresent();
        assertThat(store.size()).isEqualTo(3);
    }

    @Test
    void purgeIsBounded() {
        for (String id : new String[] {"a", "b", "c"}) {
            claim(id, Duration.ofMinutes(1));
        }
        clock.advance(Duration.ofMinutes(2));

        assertThat(store.purgeExpired(2)).isEqualTo(2);
        assertThat(store.purgeExpired(2)).isEqualTo(1);
        assertThat(store.purgeExpired(2)).isZero();
        assertThatThrownBy(() -> store.purgeExpired(0)).hasMessageContaining("maxRecords");
    }

    /** The store packs lowercase hex SHA-256 fingerprints into 32 bytes; every fingerprint must read back as given. */
    @Test
    void fingerprintsReadBackAsGivenWhetherPackedOrNot() {
        String sha = PayloadFingerprint.SHA_256.of("{\"order\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String[] fingerprints = {sha, sha.toUpperCase(java.util.Locale.ROOT), "\u0661".repeat(64), "short",
                "g".repeat(64), sha.substring(1) + "\u00e9"};
        for (int i = 0; i < fingerprints.length; i++) {
            IdempotencyKey key = IdempotencyKey.of("n", "f" + i);
            ClaimResult.Acquired a = (ClaimResult.Acquired) OneKey.claim(store, new ClaimRequest(key, fingerprints[i],
                    Duration.ofSeconds(30), Duration.ofHours(1)));
            assertThat(OneKey.find(store, key)).get().extracting(IdempotencyRecord::fingerprint).isEqualTo(fingerprints[i]);
            OneKey.complete(store, a.lease(), new byte[0], Duration.ofHours(1));
            ClaimResult again = OneKey.claim(store, new ClaimRequest(key, fingerprints[i], Duration.ofSeconds(30),
                    Duration.ofHours(1)));
            assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
            assertThat(((ClaimResult.Duplicate) again).record().fingerprint()).isEqualTo(fingerprints[i]);
            assertThat(((ClaimResult.Duplicate) again).record().result()).isEmpty();
            store.purgeExpired(Integer.MAX_VALUE);
            clock.advance(Duration.ofHours(2));
            assertThat(store.purgeExpired(Integer.MAX_VALUE)).isEqualTo(1);
        }
    }
}
