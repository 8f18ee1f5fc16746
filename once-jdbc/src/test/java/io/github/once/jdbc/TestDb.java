package io.github.once.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The real databases the tests use, on 127.0.0.1 (PostgreSQL 5432, MariaDB 3306, database {@code test}) and H2 in
 * memory. A pool that cannot connect fails the test at once; nothing is skipped.
 */
enum TestDb {
    POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/test", "postgres", JdbcDialect.POSTGRESQL),
    MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root", JdbcDialect.MARIADB),
    H2("jdbc:h2:mem:once_test;DB_CLOSE_DELAY=-1", "sa", JdbcDialect.H2);

    final String url;
    final String user;
    final JdbcDialect dialect;

    TestDb(String url, String user, JdbcDialect dialect) {
        this.url = url;
        this.user = user;
        this.dialect = dialect;
    }

    /** A pool on another database of the same server, read-committed and auto-commit. */
    static HikariDataSource pool(String url, String user, String name) {
        return pool(url, user, name, "TRANSACTION_READ_COMMITTED", true, 24);
    }

    /** A pool with the given isolation (e.g. TRANSACTION_REPEATABLE_READ) and auto-commit default. */
    HikariDataSource pool(String isolation, boolean autoCommit) {
        return pool(url, user, "once-test-" + name().toLowerCase() + "-" + isolation, isolation, autoCommit, 24);
    }

    /** A read-committed, auto-commit pool of one connection: every statement runs in one server session. */
    HikariDataSource singleConnectionPool() {
        return pool(url, user, "once-test-" + name().toLowerCase() + "-single", "TRANSACTION_READ_COMMITTED", true, 1);
    }

    private static HikariDataSource pool(String url, String user, String name, String isolation,
            boolean autoCommit, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5_000);
        config.setAutoCommit(autoCommit);
        config.setTransactionIsolation(isolation);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    /**
     * This database's own driver aimed at a local port where nothing listens: every connection attempt is refused
     * at once, as when the database is down.
     */
    DataSource unreachable() {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort(); // closed again below, so nothing listens there
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return switch (this) {
            case POSTGRESQL -> {
                PGSimpleDataSource ds = new PGSimpleDataSource();
                ds.setUrl("jdbc:postgresql://127.0.0.1:" + port + "/test");
                ds.setUser(user);
                yield ds;
            }
            case MARIADB -> {
                try {
                    yield new MariaDbDataSource("jdbc:mariadb://127.0.0.1:" + port + "/test?user=" + user);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
            case H2 -> {
                JdbcDataSource ds = new JdbcDataSource();
                ds.setURL("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:unreachable");
                ds.setUser(user);
                yield ds;
            }
        };
    }

    static String randomTable(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** A business table for effects: one row per effect, keyed by nothing, so a repeat shows as a second row. */
    void createEffectTable(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (message_id VARCHAR(200) NOT NULL, note VARCHAR(200))");
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    static void drop(javax.sql.DataSource ds, String... tables) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            for (String table : tables) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    static long count(javax.sql.DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            long n = rs.getLong(1);
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return n;
        }
    }

    /** The query that gives this connection's server-side session id, for killing it from another connection. */
    String sessionIdQuery() {
        return switch (this) {
            case POSTGRESQL -> "SELECT pg_backend_pid()";
            case MARIADB -> "SELECT CONNECTION_ID()";
            case H2 -> "SELECT SESSION_ID()";
        };
    }

    /** Breaks another session's connection, as a crash or a network cut would. */
    String killSession(long id) {
        return switch (this) {
            case POSTGRESQL -> "SELECT pg_terminate_backend(" + id + ")";
            case MARIADB -> "KILL " + id;
            case H2 -> "CALL ABORT_SESSION(" + id + ")";
        };
    }

    /** Sessions waiting for a row lock right now. */
    String lockWaitersQuery() {
        return switch (this) {
            case POSTGRESQL -> "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND datname = current_database()";
            case MARIADB -> "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
            case H2 -> "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
        };
    }
}
