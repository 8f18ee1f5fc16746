package io.github.once.spring.rabbit.internal;

import io.github.once.Idempotency;
import io.github.once.Outcome;
import io.github.once.StoreUnavailableException;
import io.github.once.Task;
import io.github.once.spi.TransactionalStore;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Transactional mode in Spring's own transaction: the listener runs in a transaction of the application's
 * transaction manager (joined, when the container already started one), and the record is written through the
 * connection Spring bound to it ({@link DataSourceUtils#getConnection}), so it commits with the listener's
 * {@code JdbcTemplate} or JPA writes, or neither does.
 */
public final class SpringTransactions {
    private final TransactionTemplate template;
    private final DataSource dataSource;
    private final TransactionalStore store;

    public SpringTransactions(PlatformTransactionManager manager, DataSource dataSource, TransactionalStore store) {
        this.template = new TransactionTemplate(Objects.requireNonNull(manager, "transactionManager"));
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.store = store;
    }

    /**
     * One task in one transaction. A transaction that could not commit after the task was recorded throws (the
     * record and the effect are both gone: the message goes back); one that the listener's own
     * {@code @Transactional} marked rollback-only after a failure keeps the task's {@code Failed} outcome.
     */
    public Outcome<byte[]> execute(Idempotency executor, Task<byte[]> task) {
        List<Outcome<byte[]>> out = new ArrayList<>(1);
        try {
            template.executeWithoutResult(status -> out.add(inTransaction(executor, task)));
        } catch (TransactionSystemException | CannotCreateTransactionException e) {
            throw unreachable(e);
        } catch (UnexpectedRollbackException e) {
            if (!out.isEmpty() && !(out.get(0) instanceof Outcome.Processed<byte[]>)) {
                return out.get(0);
            }
            throw e;
        }
        return out.get(0);
    }

    /**
     * A batch in one transaction: each task is claimed and recorded (its handler only notes it), then
     * {@code listener} runs once with the indexes of the tasks claimed, before the commit. When the listener
     * throws, the transaction rolls back and every claimed task is {@code Failed} with its cause.
     */
    public List<Outcome<byte[]>> executeBatch(Idempotency executor, List<Task<byte[]>> tasks,
                                              Function<List<Integer>, Exception> listener) {
        List<Outcome<byte[]>> outcomes = new ArrayList<>(tasks.size());
        List<Integer> claimed = new ArrayList<>();
        Exception[] failure = new Exception[1];
        try {
            template.executeWithoutResult(status -> {
                for (int i = 0; i < tasks.size(); i++) {
                    int index = i;
                    Task<byte[]> t = tasks.get(i);
                    outcomes.add(inTransaction(executor, new Task<>(t.key(), t.payload(), t.codec(), ctx -> {
                        claimed.add(index);
                        return null;
                    })));
                }
                failure[0] = claimed.isEmpty() ? null : listener.apply(claimed);
                if (failure[0] != null) {
                    status.setRollbackOnly();
                }
            });
        } catch (TransactionSystemException | CannotCreateTransactionException e) {
            throw unreachable(e);
        } catch (UnexpectedRollbackException e) {
            if (failure[0] == null) {
                throw e;
            }
        }
        if (failure[0] != null) {
            for (int i : claimed) {
                outcomes.set(i, new Outcome.Failed<>(tasks.get(i).key(), failure[0]));
            }
        }
        return outcomes;
    }

    /**
     * A transaction that could not begin, commit or roll back lost its connection or its database: nothing of it
     * is left, and the message goes back like any other outage's. When a rollback failed after the store had
     * already refused the work, the store's own exception says what happened (Spring's replaced it).
     */
    private static RuntimeException unreachable(TransactionException e) {
        if (e instanceof TransactionSystemException system
                && system.getApplicationException() instanceof RuntimeException original) {
            original.addSuppressed(e);
            return original;
        }
        return new StoreUnavailableException("the transaction could not complete: " + e.getMessage(), e);
    }

    /** Runs {@code task} on the connection of the transaction in progress; the executor records in the store. */
    private Outcome<byte[]> inTransaction(Idempotency executor, Task<byte[]> task) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return executor.execute(store.joining(connection), task);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
