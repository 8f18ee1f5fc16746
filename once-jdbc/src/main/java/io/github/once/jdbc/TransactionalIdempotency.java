package io.github.once.jdbc;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotentExecutor;
import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreOperation;
import io.github.once.Task;
import io.github.once.internal.SafeListener;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each handler inside one database transaction that also writes its completed record: commit makes the
 * effect and the record visible together, rollback neither. The handler does its writes on the connection from
 * {@code context.resource(Connection.class)}.
 *
 * <p>The claim is the store's single upsert, run inside the transaction: the uncommitted row holds the key. A
 * concurrent duplicate waits on that row; when the first commits it sees the completed record and answers
 * {@code Duplicate}, and when the first rolls back it claims the key itself. The row lock is the lease, so no
 * renewal runs; a crash before commit rolls back effect and claim alike.
 *
 * <pre>{@code
 * TransactionalIdempotency once = TransactionalIdempotency.builder(store).build();
 * Outcome<String> outcome = once.execute(IdempotencyKey.of("payments", messageId), body, ResultCodec.utf8(), ctx -> {
 *     Connection c = ctx.resource(Connection.class);
 *     try (PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance - ? WHERE id = ?")) { ... }
 *     return "charged";
 * });
 * }</pre>
 */
public final class TransactionalIdempotency implements IdempotentExecutor {

    private static final Logger log = LoggerFactory.getLogger(TransactionalIdempotency.class);

    private final JdbcIdempotencyStore store;
    private final IdempotencyConfig config;
    private final Clock clock;
    private final SafeListener listener;

    private TransactionalIdempotency(Builder b) {
        this.store = b.store;
        this.config = b.config;
        this.clock = b.clock;
        this.listener = new SafeListener(b.listener);
    }

    public static Builder builder(JdbcIdempotencyStore store) {
        return new Builder(store);
    }

    public JdbcIdempotencyStore store() {
        return store;
    }

    public IdempotencyConfig config() {
        return config;
    }

    /** Runs one task in a transaction of its own, on a connection from the store's data source. */
    @Override
    public <T> Outcome<T> execute(Task<T> task) {
        Instant start = clock.instant();
        ClaimRequest request = request(task);
        for (int attempt = 1; ; attempt++) {
            try {
                Outcome<T> outcome = executeOnce(task, request);
                return reported(outcome, start);
            } catch (RaceLost race) {
                // Answer from what is committed now; only an absent row (the other side rolled back) is worth
                // another claim, and only a bounded number of times.
                Optional<ClaimResult> answer = store.answerFromRead(request, race.cause);
                if (answer.isPresent() || race.timedOut || attempt >= JdbcIdempotencyStore.CLAIM_ATTEMPTS) {
                    ClaimResult result = answer.orElseGet(() -> busyNow(request));
                    return reported(notAcquired(task, result), start);
                }
            }
        }
    }

    private <T> Outcome<T> executeOnce(Task<T> task, ClaimRequest request) {
        try (Connection c = store.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try {
                ClaimResult claim;
                try {
                    claim = claimOne(c, request);
                } catch (SQLException e) {
                    JdbcIdempotencyStore.rollbackQuietly(c, e);
                    throw raceOr(e, "claim");
                }
                if (!(claim instanceof ClaimResult.Acquired acquired)) {
                    c.rollback();
                    return notAcquired(task, claim);
                }
                Outcome<T> outcome = runAndRecord(c, task, acquired.lease());
                if (outcome instanceof Outcome.Processed) {
                    c.commit();
                } else {
                    c.rollback();
                }
                return outcome;
            } catch (SQLException | RuntimeException | Error e) {
                JdbcIdempotencyStore.rollbackQuietly(c, e);
                throw e;
            } finally {
                if (autoCommit) {
                    restoreAutoCommit(c);
                }
            }
        } catch (SQLException e) {
            throw SqlErrors.translate("transactional execution of " + task.key(), e);
        }
    }

    /**
     * Runs one task inside a transaction the caller manages: Once neither commits, rolls back, nor changes
     * auto-commit on {@code callerConnection}. The claim, the handler's effect and the completed record become
     * visible when the caller commits, and vanish if the caller rolls back. A failing handler is rolled back to a
     * savepoint taken before the claim, so the caller's earlier work survives and the outcome is {@code Failed}.
     *
     * <p>{@code Processed} here means "recorded in your transaction": it holds once the caller commits.
     *
     * @throws IllegalArgumentException when the connection is in auto-commit mode (there is no transaction to join)
     */
    public <T> Outcome<T> execute(Connection callerConnection, Task<T> task) {
        Objects.requireNonNull(callerConnection, "callerConnection");
        Objects.requireNonNull(task, "task");
        Instant start = clock.instant();
        ClaimRequest request = request(task);
        try {
            if (callerConnection.getAutoCommit()) {
                throw new IllegalArgumentException("callerConnection must be inside a transaction (autoCommit false),"
                        + " but autoCommit was true");
            }
            return reported(inSavepoint(callerConnection, task, request), start);
        } catch (SQLException e) {
            throw SqlErrors.translate("transactional execution of " + task.key(), e);
        } catch (RaceLost race) {
            // Inside the caller's snapshot a retry would see the same: answer from a fresh read, else busy.
            ClaimResult result = store.answerFromRead(request, race.cause).orElseGet(() -> busyNow(request));
            return reported(notAcquired(task, result), start);
        }
    }

    /**
     * Runs the tasks in one transaction for throughput: one claim statement for all distinct keys, then the handlers
     * one after another without savepoints, then one statement recording all processed tasks before the commit.
     * A key repeated in the batch is claimed at its turn and sees the earlier one ({@code Duplicate} after it was
     * processed).
     *
     * <p>When a handler throws, the whole transaction rolls back (the effects written so far and the claims go with
     * it), that task is {@code Failed}, and the batch runs again without it in a new transaction, where its key is
     * claimed and released so a redelivery can retry at once; the others commit together with their records. In that
     * second run the tasks after the failed one run under a savepoint each, so further failures roll back only their
     * own effect. Each rollback removes one task, so a batch of n runs at most n + 1 transactions (two when the
     * handlers fail the same way each time).
     *
     * <p><b>Handlers may run more than once.</b> After such a rollback, the handlers of the tasks before the failed
     * one run again. Their writes on {@code context.resource(Connection.class)} were rolled back, so the result is
     * the same as if they ran once; side effects outside the database (an HTTP call, a message sent) repeat. Use
     * {@link #execute(Task)} per task when a handler has such effects.
     *
     * <p>If the batch transaction itself is lost to a deadlock or a serialization failure, nothing of it was
     * committed, and the tasks not yet failed run one by one instead.
     */
    @Override
    public <T> List<Outcome<T>> executeAll(List<Task<T>> tasks) {
        if (tasks.size() <= 1) {
            return tasks.isEmpty() ? List.of() : List.of(execute(tasks.get(0)));
        }
        Instant start = clock.instant();
        Map<Integer, Outcome<T>> failed = new HashMap<>();
        int savepointsFrom = tasks.size();
        List<Outcome<T>> outcomes = null;
        while (outcomes == null) {
            try {
                Attempt<T> attempt = executeBatch(tasks, failed, savepointsFrom);
                if (attempt.failedAt() < 0) {
                    outcomes = attempt.outcomes();
                } else {
                    // Rolled back: run again without it, sparing the tasks not yet seen a rollback of their own.
                    failed.put(attempt.failedAt(), attempt.failure());
                    savepointsFrom = Math.min(savepointsFrom, attempt.failedAt() + 1);
                }
            } catch (RaceLost race) {
                log.debug("Batch of {} lost a race ({}); running its tasks one by one", tasks.size(),
                        race.getMessage());
                List<Outcome<T>> single = new ArrayList<>(tasks.size());
                for (int i = 0; i < tasks.size(); i++) {
                    Outcome<T> failure = failed.get(i);
                    single.add(failure != null ? reported(failure, start) : execute(tasks.get(i)));
                }
                return single;
            }
        }
        for (Outcome<T> outcome : outcomes) {
            reported(outcome, start);
        }
        return outcomes;
    }

    /**
     * One transaction over the batch. The tasks in {@code failed} are claimed and released, not run; the tasks from
     * index {@code savepointsFrom} on run under a savepoint each. Returns the outcomes after the commit, or, when a
     * handler without a savepoint threw, its index and outcome after the rollback.
     */
    private <T> Attempt<T> executeBatch(List<Task<T>> tasks, Map<Integer, Outcome<T>> failed, int savepointsFrom) {
        try (Connection c = store.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try {
                List<ClaimRequest> requests = new ArrayList<>(tasks.size());
                List<ClaimRequest> firsts = new ArrayList<>();
                List<Boolean> isFirst = new ArrayList<>(tasks.size());
                Set<String> seen = new HashSet<>();
                for (Task<T> task : tasks) {
                    ClaimRequest request = request(task);
                    requests.add(request);
                    boolean first = seen.add(Claims.id(task.key()));
                    isFirst.add(first);
                    if (first) {
                        firsts.add(request);
                    }
                }
                List<ClaimResult> firstClaims;
                try {
                    firstClaims = timedSql(StoreOperation.CLAIM_ALL, firsts.size(),
                            () -> store.claims().claimAll(c, firsts));
                } catch (SQLException e) {
                    throw raceOr(e, "claim");
                }
                List<Outcome<T>> outcomes = new ArrayList<>(tasks.size());
                List<Completion> pending = new ArrayList<>();
                int next = 0;
                for (int i = 0; i < tasks.size(); i++) {
                    Task<T> task = tasks.get(i);
                    ClaimResult claim;
                    if (isFirst.get(i)) {
                        claim = firstClaims.get(next++);
                    } else {
                        // A repeated key must see the earlier one's record: write what is pending first.
                        record(c, pending);
                        try {
                            claim = claimOne(c, requests.get(i));
                        } catch (SQLException e) {
                            throw raceOr(e, "claim");
                        }
                    }
                    Outcome<T> failure = failed.get(i);
                    if (!(claim instanceof ClaimResult.Acquired acquired)) {
                        outcomes.add(failure != null ? failure : notAcquired(task, claim));
                    } else if (failure != null) {
                        releaseClaim(c, acquired.lease());
                        outcomes.add(failure);
                    } else if (i >= savepointsFrom) {
                        outcomes.add(runUnderSavepoint(c, task, acquired.lease(), pending));
                    } else {
                        Ran<T> ran = run(c, task, acquired.lease());
                        if (!(ran.outcome() instanceof Outcome.Processed)) {
                            c.rollback();
                            return Attempt.failedAt(i, ran.outcome());
                        }
                        pending.add(new Completion(acquired.lease(), ran.encoded(), config.retention()));
                        outcomes.add(ran.outcome());
                    }
                }
                record(c, pending);
                c.commit();
                return Attempt.committed(outcomes);
            } catch (SQLException | RuntimeException | Error e) {
                JdbcIdempotencyStore.rollbackQuietly(c, e);
                throw e;
            } finally {
                if (autoCommit) {
                    restoreAutoCommit(c);
                }
            }
        } catch (SQLException e) {
            if (SqlErrors.isRace(e)) {
                throw new RaceLost(e, false);
            }
            throw SqlErrors.translate("transactional batch of " + tasks.size(), e);
        }
    }

    /** One run of a batch: its outcomes once committed, or the task whose failure rolled it back. */
    private record Attempt<T>(List<Outcome<T>> outcomes, int failedAt, Outcome<T> failure) {
        static <T> Attempt<T> committed(List<Outcome<T>> outcomes) {
            return new Attempt<>(outcomes, -1, null);
        }

        static <T> Attempt<T> failedAt(int index, Outcome<T> failure) {
            return new Attempt<>(null, index, failure);
        }
    }

    /**
     * In the run after a rollback: the claim is already in the transaction; the handler's effect goes under a
     * savepoint. A processed task's completion joins {@code pending}, written for the whole batch by one statement
     * before the commit; a failed task's effect rolls back to its savepoint, so it has no record to write.
     */
    private <T> Outcome<T> runUnderSavepoint(Connection c, Task<T> task, Lease lease, List<Completion> pending)
            throws SQLException {
        Savepoint savepoint = c.setSavepoint();
        Ran<T> ran = run(c, task, lease);
        Outcome<T> outcome = ran.outcome();
        if (outcome instanceof Outcome.Processed) {
            c.releaseSavepoint(savepoint);
            pending.add(new Completion(lease, ran.encoded(), config.retention()));
        } else {
            c.rollback(savepoint);
            releaseClaim(c, lease);
        }
        return outcome;
    }

    /** Keeps a failed task's claimed row, released: the key's token counter survives and a redelivery claims at once. */
    private void releaseClaim(Connection c, Lease lease) throws SQLException {
        timedSql(StoreOperation.RELEASE, 1, () -> store.release(c, lease, false));
    }

    /** For the caller's transaction: everything this task does sits under one savepoint. */
    private <T> Outcome<T> inSavepoint(Connection c, Task<T> task, ClaimRequest request) throws SQLException {
        Savepoint savepoint = c.setSavepoint();
        ClaimResult claim;
        try {
            claim = claimOne(c, request);
        } catch (SQLException e) {
            c.rollback(savepoint);
            throw raceOr(e, "claim");
        }
        if (!(claim instanceof ClaimResult.Acquired acquired)) {
            c.rollback(savepoint);
            return notAcquired(task, claim);
        }
        Outcome<T> outcome = runAndRecord(c, task, acquired.lease());
        if (outcome instanceof Outcome.Processed) {
            c.releaseSavepoint(savepoint);
        } else {
            c.rollback(savepoint);
        }
        return outcome;
    }

    /**
     * Runs the handler on the transaction's connection and writes the completed record in the same transaction.
     * Returns {@code Failed} when the handler threw; the caller then rolls its effect back.
     */
    private <T> Outcome<T> runAndRecord(Connection c, Task<T> task, Lease lease) throws SQLException {
        Ran<T> ran = run(c, task, lease);
        if (ran.outcome() instanceof Outcome.Processed) {
            // The transaction holds the row: no one can take it over, so the lease deadline does not matter here.
            boolean recorded = timedSql(StoreOperation.COMPLETE, 1,
                    () -> store.complete(c, lease, ran.encoded(), config.retention(), false));
            if (!recorded) {
                throw changedInOwnTransaction(lease);
            }
        }
        return ran.outcome();
    }

    /** Runs the handler on the transaction's connection; {@code Failed} when it threw. */
    private <T> Ran<T> run(Connection c, Task<T> task, Lease lease) {
        T result;
        try {
            result = task.handler().handle(new TransactionContext(lease, GuardedConnection.wrap(c)));
        } catch (Exception e) {
            return new Ran<>(new Outcome.Failed<>(task.key(), e), null);
        }
        byte[] encoded = task.codec().encode(result);
        return new Ran<>(new Outcome.Processed<>(task.key(), result, lease.token()), encoded);
    }

    /** Writes the pending completions of a batch with one statement, in the batch's transaction. */
    private void record(Connection c, List<Completion> pending) throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        List<Boolean> recorded = timedSql(StoreOperation.COMPLETE_ALL, pending.size(),
                () -> store.completions().completeAll(c, pending, false));
        for (int i = 0; i < recorded.size(); i++) {
            if (!recorded.get(i)) {
                throw changedInOwnTransaction(pending.get(i).lease());
            }
        }
        pending.clear();
    }

    private static OnceException changedInOwnTransaction(Lease lease) {
        return new OnceException("the claimed row of " + lease.key() + " (token " + lease.token()
                + ") changed inside its own transaction; was the table modified by hand?");
    }

    /** A handler's outcome and, when processed, its encoded result. */
    private record Ran<T>(Outcome<T> outcome, byte[] encoded) {
    }

    private ClaimResult claimOne(Connection c, ClaimRequest request) throws SQLException {
        return timedSql(StoreOperation.CLAIM, 1, () -> store.claims().claimDistinct(c, List.of(request)).get(0));
    }

    private ClaimRequest request(Task<?> task) {
        return new ClaimRequest(task.key(), config.fingerprint().of(task.payload()), config.leaseDuration(),
                config.retention());
    }

    private ClaimResult busyNow(ClaimRequest request) {
        // Uncommitted work holds the key: it is busy for about a lease, by this process's clock.
        return new ClaimResult.Busy(clock.instant().plus(request.leaseDuration()));
    }

    private static <T> Outcome<T> notAcquired(Task<T> task, ClaimResult claim) {
        IdempotencyKey key = task.key();
        if (claim instanceof ClaimResult.Busy busy) {
            return new Outcome.Busy<>(key, busy.leaseUntil());
        }
        if (claim instanceof ClaimResult.Duplicate duplicate) {
            return new Outcome.Duplicate<>(key, task.codec().decode(duplicate.record().result()), duplicate.record());
        }
        if (claim instanceof ClaimResult.Conflict conflict) {
            return new Outcome.Conflict<>(key, conflict.record());
        }
        throw new OnceException("unexpected claim result " + claim);
    }

    private <T> Outcome<T> reported(Outcome<T> outcome, Instant start) {
        listener.onOutcome(outcome, Duration.between(start, clock.instant()));
        return outcome;
    }

    private RuntimeException raceOr(SQLException e, String operation) {
        if (SqlErrors.isRace(e)) {
            return new RaceLost(e, false);
        }
        if (SqlErrors.isTimeout(e)) {
            // Most often a lock wait behind another transaction's long handler; a fresh read tells.
            return new RaceLost(e, true);
        }
        return SqlErrors.translate(operation, e);
    }

    private <R> R timedSql(StoreOperation operation, int keys, SqlCall<R> call) throws SQLException {
        long started = System.nanoTime();
        try {
            R result = call.call();
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), null);
            return result;
        } catch (SQLException | RuntimeException e) {
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), e);
            throw e;
        }
    }

    private static void restoreAutoCommit(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            log.debug("Could not restore auto-commit; the pool will discard the connection", e);
        }
    }

    @FunctionalInterface
    private interface SqlCall<R> {
        R call() throws SQLException;
    }

    /** A claim that lost a race or timed out waiting for a lock; its transaction was rolled back. */
    private static final class RaceLost extends RuntimeException {
        final SQLException cause;
        final boolean timedOut;

        RaceLost(SQLException cause, boolean timedOut) {
            super(cause.getMessage(), cause, false, false);
            this.cause = cause;
            this.timedOut = timedOut;
        }
    }

    /** What a transactional handler sees: the lease it holds and the transaction's connection. */
    private record TransactionContext(Lease lease, Connection connection) implements ExecutionContext {
        @Override
        public IdempotencyKey key() {
            return lease.key();
        }

        @Override
        public long fencingToken() {
            return lease.token();
        }

        @Override
        public boolean leaseHeld() {
            return true; // the uncommitted row stays locked until this transaction ends
        }

        @Override
        public <R> R resource(Class<R> type) {
            if (type == Connection.class) {
                return type.cast(connection);
            }
            throw new IllegalStateException("a transactional executor provides a java.sql.Connection, not "
                    + type.getName());
        }
    }

    public static final class Builder {
        private final JdbcIdempotencyStore store;
        private IdempotencyConfig config = IdempotencyConfig.defaults();
        private Clock clock = Clock.systemUTC();
        private OnceListener listener = OnceListener.NONE;

        private Builder(JdbcIdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** Lease (how long a claim counts as live for other consumers), retention and fingerprints. */
        public Builder config(IdempotencyConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Times executions for the listener; deadlines use the database's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder listener(OnceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public TransactionalIdempotency build() {
            return new TransactionalIdempotency(this);
        }
    }
}
