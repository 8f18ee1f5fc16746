package io.github.once.jdbc.internal;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.sql.SQLException;
import java.util.List;

/** A transaction of its own, on a pooled connection, around one task or one batch. */
final class OwnTransactionUnit extends TransactionUnit {

    private final Transaction transaction;

    OwnTransactionUnit(RecordTable table, Transaction transaction) {
        super(table, transaction.connection());
        this.transaction = transaction;
    }

    /** Nothing else is in the transaction yet, so a lost race can be answered, or tried again in a new one. */
    @Override
    ClaimResult firstClaim(ClaimRequest request) throws SQLException {
        return table.claimAnswering(connection, List.of(request), true, true).get(0);
    }

    @Override
    void commitTransaction() throws SQLException {
        transaction.commit();
    }

    @Override
    void rollbackTransaction() throws SQLException {
        transaction.rollback();
    }

    @Override
    void end() {
        transaction.close();
    }
}
