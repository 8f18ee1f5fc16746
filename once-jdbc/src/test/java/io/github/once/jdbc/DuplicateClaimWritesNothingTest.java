package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.h2.api.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim that finds a completed record or a live lease answers from it without writing the row: no new row
 * version, no transaction id, nothing to flush at commit. Each database is probed its own way; each test also
 * checks that a claim which does take a row shows up on the same probe, so the probe can see a write.
 */
class DuplicateClaimWritesNothingTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);

    private HikariDataSource pool;
    private JdbcIdempotencyStore store;
    private final String namespace = "dup" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private void open(TestDb db) {
        pool = db.pool("TRANSACTION_READ_COMMITTED", true);
        store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_dup"))
                .createTableIfMissing(true).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            try (HikariDataSource p = pool) {
                TestDb.drop(p, store.tableName());
            }
        }
    }

    @Test
    @DisplayName("PostgreSQL: a duplicate or busy claim keeps the row's xmin and takes no transaction id")
    void postgresDuplicateKeepsRowVersion() throws Exception {
        open(TestDb.POSTGRESQL);
        IdempotencyKey done = key("done");
        IdempotencyKey live = key("live");
        IdempotencyKey released = key("released");
        assertThat(StoreCalls.complete(store, acquire(done), "r".getBytes(), RETENTION)).isTrue();
        acquire(live);
        assertThat(store.release(acquire(released))).isTrue();
        String doneVersion = xmin(done);
        String liveVersion = xmin(live);
        String releasedVersion = xmin(released);

        assertThat(StoreCalls.claim(store, request(done))).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(StoreCalls.claim(store, request(live))).isInstanceOf(ClaimResult.Busy.class);
        assertThat(store.claim(List.of(request(done), request(live))))
                .hasExactlyElementsOfTypes(ClaimResult.Duplicate.class, ClaimResult.Busy.class);

        assertThat(xmin(done)).isEqualTo(doneVersion);
        assertThat(xmin(live)).isEqualTo(liveVersion);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            List<ClaimResult> answers = store.table().claims.claimDistinct(c, List.of(request(done), request(live)), false);
            assertThat(answers).hasExactlyElementsOfTypes(ClaimResult.Duplicate.class, ClaimResult.Busy.class);
            assertThat(single(c, "SELECT txid_current_if_assigned()")).as("transaction id after duplicates").isNull();
            assertThat(store.table().claims.claimDistinct(c, List.of(request(released)), false).get(0))
                    .isInstanceOf(ClaimResult.Acquired.class);
            assertThat(single(c, "SELECT txid_current_if_assigned()")).as("transaction id after a takeover").isNotNull();
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(xmin(released)).isNotEqualTo(releasedVersion);
    }

    @Test
    @DisplayName("MariaDB: a duplicate or busy claim updates no row (the session's Handler_update stays)")
    void mariadbDuplicateUpdatesNothing() throws Exception {
        open(TestDb.MARIADB);
        IdempotencyKey done = key("done");
        IdempotencyKey live = key("live");
        IdempotencyKey released = key("released");
        assertThat(StoreCalls.complete(store, acquire(done), "r".getBytes(), RETENTION)).isTrue();
        acquire(live);
        assertThat(store.release(acquire(released))).isTrue();
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            long before = handlerUpdates(c);
            List<ClaimResult> answers = store.table().claims.claimDistinct(c, List.of(request(done), request(live)), false);
            assertThat(answers).hasExactlyElementsOfTypes(ClaimResult.Duplicate.class, ClaimResult.Busy.class);
            long afterDuplicates = handlerUpdates(c);
            assertThat(store.table().claims.claimDistinct(c, List.of(request(released)), false).get(0))
                    .isInstanceOf(ClaimResult.Acquired.class);
            long afterTakeover = handlerUpdates(c);
            c.commit();
            c.setAutoCommit(true);
            assertThat(afterDuplicates - before).as("rows updated by duplicates").isZero();
            assertThat(afterTakeover - afterDuplicates).as("rows updated by a takeover").isEqualTo(1);
        }
    }

    @Test
    @DisplayName("H2: a duplicate or busy claim fires no update trigger")
    void h2DuplicateUpdatesNothing() throws Exception {
        open(TestDb.H2);
        IdempotencyKey done = key("done");
        IdempotencyKey live = key("live");
        IdempotencyKey released = key("released");
        assertThat(StoreCalls.complete(store, acquire(done), "r".getBytes(), RETENTION)).isTrue();
        acquire(live);
        assertThat(store.release(acquire(released))).isTrue();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TRIGGER " + store.tableName() + "_upd AFTER UPDATE ON " + store.tableName()
                    + " FOR EACH ROW CALL \"" + CountUpdates.class.getName() + "\"");
        }
        CountUpdates.COUNT.set(0);

        assertThat(StoreCalls.claim(store, request(done))).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(StoreCalls.claim(store, request(live))).isInstanceOf(ClaimResult.Busy.class);
        assertThat(CountUpdates.COUNT.get()).as("rows updated by duplicates").isZero();
        assertThat(StoreCalls.claim(store, request(released))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(CountUpdates.COUNT.get()).as("rows updated by a takeover").isEqualTo(1);
    }

    /** Counts updated rows of the H2 table it is attached to. */
    public static final class CountUpdates implements Trigger {
        static final AtomicInteger COUNT = new AtomicInteger();

        @Override
        public void fire(Connection conn, Object[] oldRow, Object[] newRow) {
            COUNT.incrementAndGet();
        }
    }

    private IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    private ClaimRequest request(IdempotencyKey key) {
        return new ClaimRequest(key, null, LONG, RETENTION);
    }

    private Lease acquire(IdempotencyKey key) {
        ClaimResult result = StoreCalls.claim(store, request(key));
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).lease();
    }

    private String xmin(IdempotencyKey key) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT xmin::text FROM " + store.tableName()
                     + " WHERE namespace = ? AND record_key = ?")) {
            ps.setString(1, key.namespace());
            ps.setString(2, key.storageId());
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static Object single(Connection c, String query) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getObject(1);
        }
    }

    private static long handlerUpdates(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Handler_update'")) {
            rs.next();
            return rs.getLong(2);
        }
    }
}
