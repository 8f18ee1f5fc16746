package io.github.once.jdbc.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One record table reached through one data source, and every statement Once runs on it, each on a connection
 * whose transaction the caller ends. The store runs each step in a transaction of its own; the transactional
 * scope runs them in the transaction around a handler. Deadlines come from the database's clock.
 */
public final class RecordTable {

    private static final Logger log = LoggerFactory.getLogger(RecordTable.class);
    /** Claims of a key that lost races (deadlock, serialization failure) before it is answered from a fresh read. */
    public static final int CLAIM_ATTEMPTS = 3;

    public final DataSource dataSource;
    public final Sql sql;
    public final Claims claims;
    public final int queryTimeoutSeconds;
    private final Completions completions;

    public RecordTable(DataSource dataSource, JdbcDialect dialect, String table, int queryTimeoutSeconds) {
        this.dataSource = dataSource;
        this.sql = new Sql(dialect, table);
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.claims = new Claims(sql, queryTimeoutSeconds);
        this.completions = new Completions(sql, queryTimeoutSeconds);
    }

    /** Runs {@code work} in a transaction of its own on a pooled connection, and commits. */
    public <R> R inTransaction(String operation, Transaction.Work<R> work) {
        return Transaction.run(dataSource, operation, work);
    }

    /** Runs {@code work} on a pooled connection in its commit mode: see {@link Transaction#runAutoCommitted}. */
    public <R> R autoCommitted(String operation, Transaction.Work<R> work) {
        return Transaction.runAutoCommitted(dataSource, operation, work);
    }

    /**
     * Claims as the first work of {@code c}'s transaction. A claim that lost a race (or, when {@code lockWaits},
     * timed out waiting for a row another transaction holds) rolls that transaction back; each request is then
     * answered from what is committed now (completed is a duplicate or a conflict, in progress is busy), and only
     * the keys without a committed row (the other side rolled back) are claimed again in a new transaction, up to
     * {@link #CLAIM_ATTEMPTS} in all and not after a lock wait; the rest are busy for a lease. Acquired claims are
     * held by {@code c}'s transaction.
     *
     * <p>On a connection in auto-commit mode the keys must all be different and go in one statement
     * ({@link Claims#oneStatement}): the claim statement commits on its own, so a new key costs one round trip and
     * no separate COMMIT. A statement that lost a race was rolled back whole, and is answered as above; a key whose
     * row the statement left alone and a fresh read no longer finds held is claimed again in a new statement.
     * The reads after a claim statement take no locks, so no race can undo what it committed.
     */
    public List<ClaimResult> claimAnswering(Connection c, List<ClaimRequest> requests, boolean lockWaits,
                                            boolean completed) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (autoCommit && !Claims.oneStatement(requests)) {
            throw new IllegalArgumentException("an auto-commit claim takes distinct keys, at most " + Claims.MAX_ROWS);
        }
        ClaimResult[] answers = new ClaimResult[requests.size()];
        List<Integer> open = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            open.add(i);
        }
        for (int attempt = 1; ; attempt++) {
            List<ClaimRequest> batch = new ArrayList<>(open.size());
            for (int i : open) {
                batch.add(requests.get(i));
            }
            List<ClaimResult> claimed = null;
            RaceLost race = null;
            try {
                claimed = autoCommit ? claims.claimOrUnseen(c, batch, completed) : claims.claimAll(c, batch, completed);
            } catch (SQLException e) {
                race = RaceLost.of(e, lockWaits);
                if (race == null) {
                    throw e;
                }
                if (!autoCommit) {
                    c.rollback();
                }
            }
            List<Integer> unanswered = new ArrayList<>();
            for (int j = 0; j < open.size(); j++) {
                int i = open.get(j);
                ClaimResult answer = claimed != null ? claimed.get(j) : answerFromRead(c, requests.get(i)).orElse(null);
                if (answer == null) {
                    unanswered.add(i);
                } else {
                    answers[i] = answer;
                }
            }
            if (race != null && !autoCommit) {
                c.rollback(); // the next claim starts a new transaction, with a new snapshot
            }
            if (unanswered.isEmpty()) {
                return List.of(answers);
            }
            if (race != null && race.timedOut || attempt >= CLAIM_ATTEMPTS) {
                log.debug("Claims on {} lost {} races; answering busy", sql.table, attempt, race);
                for (int i : unanswered) {
                    answers[i] = busy(c, requests.get(i).leaseDuration());
                }
                return List.of(answers);
            }
            open = unanswered;
        }
    }

    /** The answer what is committed now gives, or busy for a lease from now when nothing is (uncommitted work holds the key). */
    ClaimResult answerNow(Connection c, ClaimRequest request) throws SQLException {
        Optional<ClaimResult> answer = answerFromRead(c, request);
        return answer.isPresent() ? answer.get() : busy(c, request.leaseDuration());
    }

    /**
     * The answer a committed row gives without a claim: completed is a duplicate (or a conflict), in progress is
     * busy. Empty when nothing is committed for the key, so a claim may be tried again.
     */
    private Optional<ClaimResult> answerFromRead(Connection c, ClaimRequest request) throws SQLException {
        Optional<IdempotencyRecord> found = find(c, request.key());
        if (found.isEmpty()) {
            return Optional.empty();
        }
        IdempotencyRecord record = found.get();
        if (record.state() == RecordState.COMPLETED) {
            return Optional.of(Claims.conflicts(record.fingerprint(), request.fingerprint())
                    ? new ClaimResult.Conflict(record) : new ClaimResult.Duplicate(record));
        }
        return Optional.of(new ClaimResult.Busy(record.leaseUntil()));
    }

    /** Busy until a lease from now by the database's clock. */
    private ClaimResult busy(Connection c, Duration leaseDuration) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.leaseFromNow)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setLong(1, Claims.micros(leaseDuration));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new ClaimResult.Busy(sql.readInstant(rs, 1));
            }
        }
    }

    /**
     * @param checkLease false when this transaction holds the claimed row (transactional scope): the lease
     *                   deadline does not matter then
     */
    public boolean complete(Connection c, Completion completion, boolean checkLease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(checkLease ? sql.complete : sql.completeHeld)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setBytes(1, completion.result());
            ps.setLong(2, Claims.micros(completion.retention()));
            bindOwner(ps, 3, completion.lease());
            return ps.executeUpdate() == 1;
        }
    }

    /** Distinct keys in one statement (up to 500 per statement); a repeated key follows in a later one. */
    public List<Boolean> completeAll(Connection c, List<Completion> batch, boolean checkLease) throws SQLException {
        return completions.completeAll(c, batch, checkLease);
    }

    public boolean release(Connection c, Lease lease, boolean checkLease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(checkLease ? sql.release : sql.releaseHeld)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            bindOwner(ps, 1, lease);
            return ps.executeUpdate() == 1;
        }
    }

    public Optional<Lease> renew(Connection c, Lease lease, Duration leaseDuration) throws SQLException {
        long micros = Claims.micros(leaseDuration);
        try (PreparedStatement ps = c.prepareStatement(sql.renew)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setLong(1, micros);
            ps.setLong(2, micros);
            bindOwner(ps, 3, lease);
            if (sql.renewedDeadline == null) {
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Lease(lease.key(), lease.token(), sql.readInstant(rs, 1)))
                            : Optional.empty();
                }
            }
            if (ps.executeUpdate() != 1) {
                return Optional.empty();
            }
        }
        // MariaDB has no UPDATE ... RETURNING: read the deadline back under the lock this transaction holds.
        try (PreparedStatement ps = c.prepareStatement(sql.renewedDeadline)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            bindOwner(ps, 1, lease);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new OnceException("renewed row of " + lease.key() + " vanished inside its transaction");
                }
                return Optional.of(new Lease(lease.key(), lease.token(), sql.readInstant(rs, 1)));
            }
        }
    }

    public Optional<IdempotencyRecord> find(Connection c, IdempotencyKey key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.find)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            sql.bindText(ps, 1, key.namespace());
            sql.bindText(ps, 2, key.storageId());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new IdempotencyRecord(key, RecordState.valueOf(rs.getString(1)), rs.getLong(2),
                        sql.readInstant(rs, 3), rs.getString(5), rs.getBytes(6), sql.readInstant(rs, 4)));
            }
        }
    }

    /** Deletes at most {@code rows} expired records. */
    public int purge(Connection c, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.purge)) {
            ps.setQueryTimeout(Math.max(queryTimeoutSeconds, 30));
            ps.setInt(1, rows);
            return ps.executeUpdate();
        }
    }

    public void createTable() {
        String script = JdbcIdempotencyStore.schemaScript(sql.dialect, sql.table);
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            for (String statement : script.split(";\\s*(\\n|$)")) {
                String trimmed = statement.replaceAll("(?m)^--.*$", "").trim();
                if (!trimmed.isEmpty()) {
                    st.execute(trimmed);
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate("create table " + sql.table, e);
        }
    }

    private void bindOwner(PreparedStatement ps, int from, Lease lease) throws SQLException {
        sql.bindText(ps, from, lease.key().namespace());
        sql.bindText(ps, from + 1, lease.key().storageId());
        ps.setLong(from + 2, lease.token());
    }
}
