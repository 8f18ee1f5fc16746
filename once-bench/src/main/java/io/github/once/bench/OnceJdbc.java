package io.github.once.bench;

import io.github.once.jdbc.JdbcIdempotencyStore;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Once's PostgreSQL store on a pool of its own, in a benchmark table (so the project's tests never see its
 * rows), for one namespace whose rows are deleted on close.
 */
public final class OnceJdbc implements AutoCloseable {

    /** The benchmark's table, created when missing. */
    public static final String TABLE = "once_bench_record";

    private final HikariDataSource dataSource;
    private final JdbcIdempotencyStore store;
    private final String namespace;

    private OnceJdbc(HikariDataSource dataSource, JdbcIdempotencyStore store, String namespace) {
        this.dataSource = dataSource;
        this.store = store;
        this.namespace = namespace;
    }

    public static OnceJdbc open(Services services, String namespace) {
        HikariDataSource dataSource = services.dataSource("once-jdbc");
        try {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                    .tableName(TABLE)
                    .createTableIfMissing(true)
                    .build();
            return new OnceJdbc(dataSource, store, namespace);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    /** The pool the store uses; the variants write their effect rows through it too. */
    public HikariDataSource dataSource() {
        return dataSource;
    }

    public JdbcIdempotencyStore store() {
        return store;
    }

    @Override
    public void close() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement delete = c.prepareStatement("DELETE FROM " + TABLE + " WHERE namespace = ?")) {
            c.setAutoCommit(true);
            delete.setString(1, namespace);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("could not delete the benchmark's rows of " + namespace, e);
        } finally {
            store.close();
            dataSource.close();
        }
    }
}
