package io.github.once.outbox;

/**
 * What one relay round did with the rows it claimed.
 *
 * @param claimed     rows taken under this relay's lease
 * @param published   confirmed by the broker and marked sent (or deleted)
 * @param retried     returned or refused, due again after a back-off
 * @param parked      returned or refused too often: kept in the table, parked, with the reason
 * @param unconfirmed no confirm (timeout, lost connection): given back to be sent again, not counted as an attempt
 * @param heldBack    not sent because an earlier message of the same aggregate did not get through
 */
public record RoundResult(int claimed, int published, int retried, int parked, int unconfirmed, int heldBack) {

    static final RoundResult EMPTY = new RoundResult(0, 0, 0, 0, 0, 0);
}
