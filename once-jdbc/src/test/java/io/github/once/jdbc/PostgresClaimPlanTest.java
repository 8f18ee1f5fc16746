package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.jdbc.internal.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim on PostgreSQL looks its keys up by primary key whatever the table's statistics say. The case that broke
 * it: statistics taken while the table's pages held only deleted rows (an ANALYZE after the purger emptied it),
 * then many rows again. The planner then thinks the table holds nothing, and a claim written as a plain join
 * walked the whole primary key index for every call, its cost growing with the table. Measured here as the
 * buffers the claim statement touches ({@code EXPLAIN (ANALYZE, BUFFERS)} in a transaction rolled back), on a table
 * of 100,000 rows whose statistics say it is empty.
 */
class PostgresClaimPlanTest {

    private static final int ROWS = 100_000;
    /**
     * A look-up and an insert into two indexes touch about a dozen buffers; the walk of the whole index, before the
     * fix, touched 43,931.
     */
    private static final int MOST_BUFFERS_PER_KEY = 40;

    /** The top node's own counts come first in PostgreSQL's JSON plan, before its "Plans". */
    private static final Pattern HIT = Pattern.compile("\"Shared Hit Blocks\": (\\d+)");
    private static final Pattern READ = Pattern.compile("\"Shared Read Blocks\": (\\d+)");

    private HikariDataSource pool;
    private String table;
    private final String namespace = "plan" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeEach
    void setUp() throws SQLException {
        pool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
        table = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_plan"))
                .createTableIfMissing(true).build().tableName();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            // As after a purge: the table's pages hold only deleted rows when ANALYZE runs, so the statistics say
            // "these pages hold no rows"; no autovacuum may refresh them while the table fills again.
            st.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
            st.execute(insertCompleted("gone-"));
            st.execute("DELETE FROM " + table);
            st.execute("ANALYZE " + table);
            st.execute(insertCompleted("done-"));
            try (ResultSet rs = st.executeQuery("SELECT reltuples FROM pg_class WHERE relname = '" + table + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getDouble(1)).as("the statistics still call the table empty").isLessThanOrEqualTo(0);
            }
        }
    }

    private String insertCompleted(String prefix) {
        return "INSERT INTO " + table + " (namespace, record_key, state, token, lease_until, expires_at, created_at,"
                + " completed_at) SELECT '" + namespace + "', '" + prefix + "' || i, 'COMPLETED', 1, clock_timestamp(),"
                + " clock_timestamp() + INTERVAL '1 hour', clock_timestamp(), clock_timestamp()"
                + " FROM generate_series(1, " + ROWS + ") AS i";
    }

    @AfterEach
    void tearDown() throws SQLException {
        try (HikariDataSource p = pool) {
            TestDb.drop(p, table);
        }
    }

    @Test
    @DisplayName("a claim of one new key touches a few buffers, not the whole primary key index")
    void aNewKeyIsLookedUpByPrimaryKey() throws Exception {
        assertThat(buffersOfClaim("new-1")).isLessThan(MOST_BUFFERS_PER_KEY);
    }

    @Test
    @DisplayName("a claim of a completed key (a duplicate) touches a few buffers")
    void aDuplicateIsLookedUpByPrimaryKey() throws Exception {
        assertThat(buffersOfClaim("done-777")).isLessThan(MOST_BUFFERS_PER_KEY);
    }

    @Test
    @DisplayName("a claim of ten keys, new and completed, touches a few buffers per key")
    void aBatchLooksUpEachKeyByPrimaryKey() throws Exception {
        String[] keys = new String[10];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = i % 2 == 0 ? "new-b" + i : "done-" + (1000 + i);
        }
        assertThat(buffersOfClaim(keys)).isLessThan(MOST_BUFFERS_PER_KEY * keys.length);
    }

    /** Shared buffers (hit or read) that the store's claim statement for {@code keys} touches, rolled back. */
    private long buffersOfClaim(String... keys) throws Exception {
        String claim = new Sql(JdbcDialect.POSTGRESQL, table).claim(keys.length, false);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + claim)) {
                int p = 1;
                for (String key : keys) {
                    ps.setString(p++, namespace);
                    ps.setString(p++, key);
                    ps.setLong(p++, 30_000_000L);
                    ps.setLong(p++, 3_600_000_000L);
                    ps.setString(p++, null);
                    ps.setLong(p++, 1); // the claim id: any will do, the statement is rolled back
                }
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    String plan = rs.getString(1);
                    return first(HIT, plan) + first(READ, plan);
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static long first(Pattern pattern, String plan) {
        Matcher m = pattern.matcher(plan);
        assertThat(m.find()).as("%s in %s", pattern, plan).isTrue();
        return Long.parseLong(m.group(1));
    }
}
