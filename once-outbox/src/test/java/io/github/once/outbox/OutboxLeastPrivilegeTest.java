package io.github.once.outbox;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.jdbc.JdbcDialect;
import io.github.once.rabbitmq.OutboundMessage;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The outbox's writer and purger run with the rights docs/security.md gives them on the real PostgreSQL, and fail
 * with the database's "permission denied" naming the table without one: the application that calls
 * {@link Outbox#write} needs INSERT alone on the outbox table; {@link OutboxPurger} needs SELECT, UPDATE (its batch
 * locks rows with FOR UPDATE) and DELETE. Each role is a fresh login role with rights on a fresh outbox table only.
 */
class OutboxLeastPrivilegeTest {
    private static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final String WRITER = "once_writer_" + SUFFIX;
    private static final String NOTHING = "once_nothing_" + SUFFIX;
    private static final String PURGER = "once_purger_" + SUFFIX;
    private static final String PURGER_NO_DELETE = "once_purger_nodel_" + SUFFIX;
    private static final String PURGER_NO_UPDATE = "once_purger_noupd_" + SUFFIX;
    private static final List<HikariDataSource> POOLS = new ArrayList<>();
    private static TestDatabase db;

    @BeforeAll
    static void roles() throws SQLException {
        db = new TestDatabase(TestDatabase.Kind.POSTGRESQL);
        role(WRITER, "INSERT");
        role(NOTHING, null);
        role(PURGER, "SELECT, UPDATE, DELETE");
        role(PURGER_NO_DELETE, "SELECT, UPDATE");
        role(PURGER_NO_UPDATE, "SELECT, DELETE");
    }

    private static void role(String name, String rights) throws SQLException {
        admin("CREATE ROLE " + name + " LOGIN");
        if (rights != null) {
            admin("GRANT " + rights + " ON " + db.table + " TO " + name);
        }
    }

    @AfterAll
    static void dropRoles() throws SQLException {
        POOLS.forEach(HikariDataSource::close);
        try {
            admin("DROP TABLE IF EXISTS " + db.table); // and with it the grants, so that the roles can go
            for (String role : List.of(WRITER, NOTHING, PURGER, PURGER_NO_DELETE, PURGER_NO_UPDATE)) {
                admin("DROP ROLE IF EXISTS " + role);
            }
        } finally {
            db.close();
        }
    }

    @Test
    void theApplicationWritesWithInsertAloneAndIsRefusedWithoutIt() throws SQLException {
        String id = "lp-" + UUID.randomUUID();
        write(as(WRITER), id);
        assertThat(rows("message_id = '" + id + "'")).isEqualTo(1);

        assertThatThrownBy(() -> write(as(NOTHING), "lp-refused"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("permission denied for table " + db.table);
        assertThat(rows("message_id = 'lp-refused'")).isZero();
    }

    @Test
    void thePurgerDeletesWithSelectUpdateAndDeleteAndIsRefusedWithoutEither() throws SQLException {
        String first = sentLongAgo();
        assertThat(purger(PURGER).purgeBatch()).isEqualTo(1);
        assertThat(rows("message_id = '" + first + "'")).isZero();

        String second = sentLongAgo();
        for (String lacking : List.of(PURGER_NO_DELETE, PURGER_NO_UPDATE)) {
            assertThatThrownBy(() -> purger(lacking).purgeBatch()).as(lacking)
                    .hasStackTraceContaining("permission denied for table " + db.table);
        }
        assertThat(rows("message_id = '" + second + "'")).as("the row the refused purgers left").isEqualTo(1);
    }

    private static OutboxPurger purger(String role) {
        return OutboxPurger.builder(as(role)).tableName(db.table).dialect(JdbcDialect.POSTGRESQL)
                .retention(Duration.ofHours(1)).build();
    }

    /** A row written and marked sent two days ago, by the table's owner. */
    private static String sentLongAgo() throws SQLException {
        String id = "lp-" + UUID.randomUUID();
        write(db.dataSource, id);
        admin("UPDATE " + db.table + " SET state = 'SENT', sent_at = now() - interval '2 days' WHERE message_id = '"
                + id + "'");
        return id;
    }

    private static void write(javax.sql.DataSource dataSource, String id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            Outbox.builder().tableName(db.table).dialect(JdbcDialect.POSTGRESQL).build()
                    .write(c, OutboundMessage.of("", "orders", "{}".getBytes(StandardCharsets.UTF_8)).withMessageId(id));
            c.commit();
        }
    }

    private static HikariDataSource as(String role) {
        HikariDataSource pool = TestDatabase.pool(TestDatabase.Kind.POSTGRESQL.url, role, 1);
        POOLS.add(pool);
        return pool;
    }

    private static long rows(String where) throws SQLException {
        try (Connection c = db.dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + db.table + " WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void admin(String sql) throws SQLException {
        try (Connection c = db.dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
