package io.github.once.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * Records by standing at one moment of the store's clock. Records past their expiry count only as
 * {@code expired}, whatever their state.
 *
 * @param now        the store's clock when it counted
 * @param inProgress in progress under a live lease
 * @param released   given back by a failed handler, waiting for the retry (always 0 from a store that does not
 *                   tell released from lapsed)
 * @param lapsed     in progress with a lease that ran out (with such a store: or released)
 * @param completed  completed, inside their retention
 * @param expired    past their expiry but still stored: what a purge deletes
 */
public record RecordCounts(Instant now, long inProgress, long released, long lapsed, long completed, long expired) {
    public RecordCounts {
        Objects.requireNonNull(now, "now");
    }
}
