package io.github.once.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.jdbc.JdbcDialect;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One of the real databases on 127.0.0.1 (or H2 in memory), with an outbox table of a fresh random name that is
 * dropped again on close. A database that is down fails the test loudly.
 */
final class TestDatabase implements AutoCloseable {

    enum Kind {
        POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/test", "postgres", JdbcDialect.POSTGRESQL),
        MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root", JdbcDialect.MARIADB),
        H2("jdbc:h2:mem:outbox-%s;DB_CLOSE_DELAY=-1", "sa", JdbcDialect.H2);

        final String url;
        final String user;
        final JdbcDialect dialect;

        Kind(String url, String user, JdbcDialect dialect) {
            this.url = url;
            this.user = user;
            this.dialect = dialect;
        }
    }

    final Kind kind;
    final String table = "once_outbox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String url;
    final HikariDataSource dataSource;

    TestDatabase(Kind kind) throws SQLException {
        this.kind = kind;
        this.url = kind.url.replace("%s", table);
        this.dataSource = pool(url, kind.user, 8);
        try (Connection c = dataSource.getConnection()) {
            Outbox.createTable(c, table);
        }
    }

    static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5000);
        config.setPoolName("outbox-test-" + UUID.randomUUID().toString().substring(0, 6));
        return new HikariDataSource(config);
    }

    Outbox outbox() {
        return Outbox.builder().tableName(table).build();
    }

    OutboxRelay.Builder relay(com.rabbitmq.client.Connection connection) {
        return OutboxRelay.builder(dataSource, connection).tableName(table).pollInterval(java.time.Duration.ofMillis(50));
    }

    /** Runs {@code work} in one transaction and commits it. */
    void inTransaction(SqlWork work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            work.run(c);
            c.commit();
        }
    }

    interface SqlWork {
        void run(Connection c) throws SQLException;
    }

    long count(String where) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table + (where.isEmpty() ? "" : " WHERE " + where))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql.replace("$table", table));
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            execute("DROP TABLE IF EXISTS $table");
        } finally {
            dataSource.close();
        }
    }
}
