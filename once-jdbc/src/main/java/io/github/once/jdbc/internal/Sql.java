package io.github.once.jdbc.internal;

import io.github.once.jdbc.JdbcDialect;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every statement Once runs, for one dialect and one table. Deadlines are always computed by the database clock;
 * the client only passes durations in microseconds.
 *
 * <p>The claim is a single statement that writes a row only when "the stored row may be taken": absent, expired,
 * or in progress with a lapsed lease; a duplicate leaves its row unwritten. The row it returns answers the claim:
 * it carries this attempt's random {@code claim_id} only when this attempt acquired it.
 *
 * <p>A release moves the lease deadline to the release time and clears {@code claim_id}: no claim holds the row
 * any more, and an in-progress row without one is a released row, which tells it from a lapsed lease (whose
 * {@code claim_id} stays). Every claim writes a new {@code claim_id}, so a retry's claim makes the row an
 * ordinary claim again. Claims do not read {@code claim_id} to decide whether a row may be taken.
 *
 * <p>Column {@code takeovers} counts claims in a row that took the row over from a lease that lapsed without a
 * completion or a release: a claim of a row in progress and not expired adds one; any other claim writes 0. A
 * release writes -1 (given back), so the claim after it counts 0.
 */
public final class Sql {

    /** Columns a claim returns, in this order. */
    static final String RETURNED = "namespace, record_key, state, token, lease_until, expires_at, fingerprint, result, claim_id,"
            + " takeovers";
    private static final String INSERTED = RETURNED + ", created_at, completed_at";
    /** Parameters per row of a claim: namespace, key, lease micros, expiry micros, fingerprint, claim id. */
    static final int CLAIM_PARAMS = 6;

    public final JdbcDialect dialect;
    public final String table;
    private final Map<Integer, String> claims = new ConcurrentHashMap<>();
    private final Map<Integer, String> newKeyClaims = new ConcurrentHashMap<>();
    private final ClaimBuilder claimBuilder;
    private final Map<Integer, String> completions = new ConcurrentHashMap<>();

    final String find;
    final String complete;
    final String completeHeld;
    final String release;
    final String releaseHeld;
    final String renew;
    /** MariaDB only: reads the renewed deadline inside the renewing transaction. */
    public final String renewedDeadline;
    final String purge;
    /** Now plus a duration in microseconds, by the database's clock. */
    final String leaseFromNow;

    public Sql(JdbcDialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        String owned = " WHERE namespace = ? AND record_key = ? AND state = 'IN_PROGRESS' AND token = ?";
        // This transaction holds the row, which it may have claimed already completed (claim(rows, true)).
        String held = " WHERE namespace = ? AND record_key = ? AND token = ?";
        // Per dialect, for the completion's and the release's statements: what they update, the database's now,
        // now plus a bound retention, what follows SET, and the row's lease deadline.
        String target;
        String now;
        String retained;
        String from = "";
        String leaseUntil = "lease_until";
        switch (dialect) {
            case POSTGRESQL -> {
                String fromNow = " FROM (SELECT clock_timestamp() AS now) AS c";
                claimBuilder = this::postgresClaim;
                find = "SELECT state, token, lease_until, expires_at, fingerprint, result FROM " + table
                        + " WHERE namespace = ? AND record_key = ? AND expires_at > clock_timestamp()";
                target = table + " AS t";
                now = "c.now";
                retained = "c.now + ? * INTERVAL '1 microsecond'";
                from = fromNow;
                leaseUntil = "t.lease_until";
                renew = "UPDATE " + table + " AS t SET lease_until = c.now + ? * INTERVAL '1 microsecond',"
                        + " expires_at = GREATEST(t.expires_at, c.now + ? * INTERVAL '1 microsecond')" + fromNow
                        + owned
                        + " AND t.lease_until > c.now RETURNING t.lease_until";
                renewedDeadline = null;
                // No DELETE ... LIMIT in PostgreSQL: lock a bounded batch of keys, skipping rows a claim holds.
                purge = "DELETE FROM " + table + " AS t USING (SELECT namespace, record_key FROM " + table
                        + " WHERE expires_at <= clock_timestamp() ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED) AS d"
                        + " WHERE t.namespace = d.namespace AND t.record_key = d.record_key";
                leaseFromNow = "SELECT clock_timestamp() + ? * INTERVAL '1 microsecond'";
            }
            case MARIADB -> {
                claimBuilder = this::mariadbClaim;
                find = "SELECT state, token, lease_until, expires_at, fingerprint, result FROM " + table
                        + " WHERE namespace = ? AND record_key = ? AND expires_at > UTC_TIMESTAMP(6)";
                target = table;
                now = "UTC_TIMESTAMP(6)";
                retained = "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
                renew = "UPDATE " + table + " SET expires_at = GREATEST(expires_at, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND),"
                        + " lease_until = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND" + owned
                        + " AND lease_until > UTC_TIMESTAMP(6)";
                renewedDeadline = "SELECT lease_until FROM " + table + owned;
                purge = "DELETE FROM " + table + " WHERE expires_at <= UTC_TIMESTAMP(6) ORDER BY expires_at LIMIT ?";
                leaseFromNow = "SELECT UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
            }
            case H2 -> {
                claimBuilder = this::h2Claim;
                find = "SELECT state, token, lease_until, expires_at, fingerprint, result FROM " + table
                        + " WHERE namespace = ? AND record_key = ? AND expires_at > CURRENT_TIMESTAMP";
                target = table;
                now = "CURRENT_TIMESTAMP";
                retained = "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
                renew = "SELECT lease_until FROM FINAL TABLE (UPDATE " + table
                        + " SET expires_at = GREATEST(expires_at, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)),"
                        + " lease_until = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)" + owned
                        + " AND lease_until > CURRENT_TIMESTAMP)";
                renewedDeadline = null;
                purge = "DELETE FROM " + table + " WHERE expires_at <= CURRENT_TIMESTAMP FETCH FIRST ? ROWS ONLY";
                leaseFromNow = "SELECT DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
            }
            default -> throw new IllegalArgumentException("dialect: " + dialect);
        }
        String completing = "UPDATE " + target + " SET state = 'COMPLETED', result = ?, lease_until = " + now
                + ", completed_at = " + now + ", expires_at = " + retained + from;
        String releasing = "UPDATE " + target + " SET state = 'IN_PROGRESS', completed_at = NULL, lease_until = " + now
                + ", claim_id = NULL, takeovers = -1" + from;
        String leaseAlive = " AND " + leaseUntil + " > " + now;
        completeHeld = completing + held;
        complete = completing + owned + leaseAlive;
        releaseHeld = releasing + held;
        release = releasing + owned + leaseAlive;
    }

    /**
     * The row of one key if it is completed or under a live lease, read after a claim that did not return it (the
     * row became untakeable after the claim's snapshot, or H2, whose claim returns only the rows it wrote).
     */
    String heldRow() {
        String now = switch (dialect) {
            case POSTGRESQL -> "clock_timestamp()";
            case MARIADB -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
        return "SELECT " + RETURNED + " FROM " + table + " WHERE namespace = ? AND record_key = ? AND NOT "
                + takeable("", now);
    }

    /**
     * The claim statement for {@code rows} distinct keys. {@code completed}: the rows it takes are written completed
     * at once, for a transaction that holds them until it commits with the handlers' work (their state is then
     * never seen in progress by anyone else); a completion then only has a result to write, if any.
     */
    public String claim(int rows, boolean completed) {
        return claims.computeIfAbsent(completed ? -rows : rows, k -> claimBuilder.build(rows, completed));
    }

    /**
     * PostgreSQL only (null otherwise): the claim of those of {@code rows} distinct keys that have no row yet, which
     * it inserts and returns; it leaves the others as they are, for {@link #claim} to answer. The common case, a
     * batch of new keys, then costs one plain insert per key instead of the full claim's look-up of each key.
     */
    String claimNewKeys(int rows, boolean completed) {
        if (dialect != JdbcDialect.POSTGRESQL) {
            return null;
        }
        return newKeyClaims.computeIfAbsent(completed ? -rows : rows, k -> "INSERT INTO " + table + " AS t ("
                + INSERTED + ") " + postgresNewRows(completed) + " FROM (VALUES " + postgresClaimValues(rows)
                + ") AS v(ns, k, lease, expiry, fp, claim_id) CROSS JOIN (SELECT clock_timestamp() AS now) AS c"
                + " ON CONFLICT (namespace, record_key) DO NOTHING RETURNING " + RETURNED);
    }

    private interface ClaimBuilder {
        String build(int rows, boolean completed);
    }

    /**
     * The completion statement for {@code rows} distinct keys; parameters per row: namespace, key, token, result,
     * retention in microseconds (MariaDB adds one last parameter, the batch's marker). PostgreSQL and H2 return the
     * keys they completed; MariaDB (no {@code UPDATE ... RETURNING}) stamps them with the marker instead, and
     * {@link #completedWith(int)} reads them back when the count alone does not tell which.
     */
    String completeAll(int rows, boolean checkLease) {
        return completions.computeIfAbsent(checkLease ? rows : -rows, k -> switch (dialect) {
            case POSTGRESQL -> postgresCompleteAll(rows, checkLease);
            case MARIADB -> mariadbCompleteAll(rows, checkLease);
            case H2 -> h2CompleteAll(rows, checkLease);
        });
    }

    private String postgresCompleteAll(int rows, boolean checkLease) {
        StringJoiner values = new StringJoiner(", ");
        for (int i = 0; i < rows; i++) {
            values.add(i == 0
                    ? "(CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BYTEA), CAST(? AS BIGINT))"
                    : "(?, ?, ?, ?, ?)");
        }
        return "UPDATE " + table + " AS t SET state = 'COMPLETED', result = v.result, lease_until = c.now,"
                + " completed_at = c.now, expires_at = c.now + v.retention * INTERVAL '1 microsecond'"
                + " FROM (VALUES " + values + ") AS v(ns, k, token, result, retention)"
                + " CROSS JOIN (SELECT clock_timestamp() AS now) AS c"
                + " WHERE t.namespace = v.ns AND t.record_key = v.k AND t.token = v.token"
                + (checkLease ? " AND t.state = 'IN_PROGRESS' AND t.lease_until > c.now" : "")
                + " RETURNING t.namespace, t.record_key";
    }

    private String mariadbCompleteAll(int rows, boolean checkLease) {
        StringJoiner values = new StringJoiner(" UNION ALL ");
        for (int i = 0; i < rows; i++) {
            values.add(i == 0 ? "SELECT ? AS ns, ? AS k, ? AS token, ? AS result, ? AS retention" : "SELECT ?, ?, ?, ?, ?");
        }
        // STRAIGHT_JOIN: walk the few given keys and look each up by primary key, never scan the table.
        // The guard sits in WHERE, evaluated before any assignment, so assignment order does not matter here.
        return "UPDATE (" + values + ") AS v STRAIGHT_JOIN " + table + " AS t"
                + " ON t.namespace = v.ns AND t.record_key = v.k"
                + " SET t.state = 'COMPLETED', t.result = v.result, t.lease_until = UTC_TIMESTAMP(6),"
                + " t.completed_at = UTC_TIMESTAMP(6), t.expires_at = UTC_TIMESTAMP(6) + INTERVAL v.retention MICROSECOND,"
                + " t.claim_id = ?"
                + " WHERE t.token = v.token"
                + (checkLease ? " AND t.state = 'IN_PROGRESS' AND t.lease_until > UTC_TIMESTAMP(6)" : "");
    }

    /** MariaDB: which of {@code rows} keys this transaction's completion stamped with its marker. */
    String completedWith(int rows) {
        StringJoiner keys = new StringJoiner(" OR ");
        for (int i = 0; i < rows; i++) {
            keys.add("(namespace = ? AND record_key = ?)");
        }
        return "SELECT namespace, record_key FROM " + table + " WHERE claim_id = ? AND (" + keys + ")";
    }

    private String h2CompleteAll(int rows, boolean checkLease) {
        StringJoiner values = new StringJoiner(", ");
        for (int i = 0; i < rows; i++) {
            values.add("(CAST(? AS VARCHAR(64)), CAST(? AS VARCHAR(200)), CAST(? AS BIGINT), CAST(? AS VARBINARY),"
                    + " CAST(? AS BIGINT))");
        }
        return "SELECT namespace, record_key FROM FINAL TABLE (MERGE INTO " + table + " AS t USING"
                + " (SELECT v.*, CURRENT_TIMESTAMP AS now FROM (VALUES " + values + ")"
                + " AS v(ns, k, token, result, retention)) AS s"
                + " ON t.namespace = s.ns AND t.record_key = s.k"
                + " WHEN MATCHED AND t.token = s.token"
                + (checkLease ? " AND t.state = 'IN_PROGRESS' AND t.lease_until > s.now" : "")
                + " THEN UPDATE SET state = 'COMPLETED', result = s.result, lease_until = s.now, completed_at = s.now,"
                + " expires_at = DATEADD(MICROSECOND, s.retention, s.now))";
    }

    private static String state(boolean completed) {
        return completed ? "'COMPLETED'" : "'IN_PROGRESS'";
    }

    /** The row may be taken: expired, or in progress with a lapsed lease. {@code now} is the claim's time. */
    private static String takeable(String row, String now) {
        return "(" + row + "expires_at <= " + now + " OR (" + row + "state = 'IN_PROGRESS' AND " + row
                + "lease_until <= " + now + "))";
    }

    /** The takeovers a claim of a takeable row writes: one more for a lapsed lease, 0 after a release or expiry. */
    private static String takeovers(String row, String now) {
        return "CASE WHEN " + row + "state = 'IN_PROGRESS' AND " + row + "expires_at > " + now + " THEN "
                + row + "takeovers + 1 ELSE 0 END";
    }

    /** The VALUES rows of a PostgreSQL claim: namespace, key, lease and expiry micros, fingerprint, claim id. */
    private static String postgresClaimValues(int rows) {
        StringJoiner values = new StringJoiner(", ");
        for (int i = 0; i < rows; i++) {
            values.add(i == 0
                    ? "(CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS VARCHAR), CAST(? AS BIGINT))"
                    : "(?, ?, ?, ?, ?, ?)");
        }
        return values.toString();
    }

    /** The row a PostgreSQL claim inserts for a key from v, at c.now. */
    private static String postgresNewRows(boolean completed) {
        return "SELECT v.ns, v.k, " + state(completed) + ", CAST(EXTRACT(EPOCH FROM c.now) * 1000000 AS BIGINT),"
                + " c.now + v.lease * INTERVAL '1 microsecond', c.now + v.expiry * INTERVAL '1 microsecond',"
                + " v.fp, NULL, v.claim_id, 0, c.now, " + (completed ? "c.now" : "NULL");
    }

    private String postgresClaim(int rows, boolean completed) {
        String values = postgresClaimValues(rows);
        String returnedT = "t." + RETURNED.replace(", ", ", t.");
        // held: rows the statement's snapshot shows completed or under a live lease. They answer the claim as they
        // are, so a duplicate neither writes nor locks (no new row version, no transaction id, no WAL flush at
        // commit). Only the other keys go to the upsert, whose DO UPDATE ... WHERE re-checks the latest version:
        // a row that became untakeable after the snapshot is locked but left unchanged and not returned, and the
        // caller reads it afterwards. v and c are each referenced twice, so PostgreSQL evaluates them once.
        // held looks each given key up by primary key (LATERAL, kept from being flattened into a join by OFFSET 0):
        // as a plain join, statistics that call the table empty (an ANALYZE after a purge emptied it) made the
        // planner walk the whole primary key index for every claim, with the keys as a filter.
        return "WITH v(ns, k, lease, expiry, fp, claim_id) AS (VALUES " + values + "),"
                + " c AS (SELECT clock_timestamp() AS now),"
                + " held AS (SELECT " + returnedT + " FROM v CROSS JOIN c CROSS JOIN LATERAL (SELECT * FROM " + table
                + " AS r WHERE r.namespace = v.ns AND r.record_key = v.k OFFSET 0) AS t"
                + " WHERE NOT " + takeable("t.", "c.now") + "),"
                + " taken AS (INSERT INTO " + table + " AS t (" + INSERTED + ") " + postgresNewRows(completed)
                + " FROM v CROSS JOIN c"
                + " WHERE NOT EXISTS (SELECT 1 FROM held AS h WHERE h.namespace = v.ns AND h.record_key = v.k)"
                + " ON CONFLICT (namespace, record_key) DO UPDATE SET state = EXCLUDED.state,"
                + " token = GREATEST(t.token + 1, EXCLUDED.token), lease_until = EXCLUDED.lease_until,"
                + " expires_at = EXCLUDED.expires_at, fingerprint = EXCLUDED.fingerprint, result = NULL,"
                + " claim_id = EXCLUDED.claim_id, created_at = EXCLUDED.created_at, completed_at = EXCLUDED.completed_at,"
                + " takeovers = " + takeovers("t.", "EXCLUDED.created_at")
                + " WHERE " + takeable("t.", "EXCLUDED.created_at")
                + " RETURNING " + RETURNED + ")"
                + " SELECT " + RETURNED + " FROM taken UNION ALL SELECT " + RETURNED + " FROM held";
    }

    private String mariadbClaim(int rows, boolean completed) {
        String now = "UTC_TIMESTAMP(6)";
        StringJoiner values = new StringJoiner(", ");
        for (int i = 0; i < rows; i++) {
            values.add("(?, ?, " + state(completed) + ", TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + now
                    + "), " + now + " + INTERVAL ? MICROSECOND, " + now + " + INTERVAL ? MICROSECOND, ?, NULL, ?, 0, "
                    + now + ", " + (completed ? now : "NULL") + ")");
        }
        String c = takeable("", "VALUES(created_at)");
        // MariaDB assigns left to right and later assignments see earlier ones. The guard reads state, expires_at
        // and lease_until, which no assignment before claim_id's changes; from there on a taken row is the one
        // holding this claim's (random) claim_id, so the rest test that instead of the guard.
        String taken = "claim_id = VALUES(claim_id)";
        return "INSERT INTO " + table + " (" + INSERTED + ") VALUES " + values
                + " ON DUPLICATE KEY UPDATE"
                + " takeovers = IF(" + c + ", " + takeovers("", "VALUES(created_at)") + ", takeovers),"
                + " token = IF(" + c + ", GREATEST(token + 1, VALUES(token)), token),"
                + " fingerprint = IF(" + c + ", VALUES(fingerprint), fingerprint),"
                + " result = IF(" + c + ", NULL, result),"
                + " claim_id = IF(" + c + ", VALUES(claim_id), claim_id),"
                + " created_at = IF(" + taken + ", VALUES(created_at), created_at),"
                + " completed_at = IF(" + taken + ", VALUES(completed_at), completed_at),"
                + " state = IF(" + taken + ", VALUES(state), state),"
                + " expires_at = IF(" + taken + ", VALUES(expires_at), expires_at),"
                + " lease_until = IF(" + taken + ", VALUES(lease_until), lease_until)"
                + " RETURNING " + RETURNED;
    }

    private String h2Claim(int rows, boolean completed) {
        StringJoiner values = new StringJoiner(", ");
        for (int i = 0; i < rows; i++) {
            values.add("(CAST(? AS VARCHAR(64)), CAST(? AS VARCHAR(200)), CAST(? AS BIGINT), CAST(? AS BIGINT),"
                    + " CAST(? AS VARCHAR(64)), CAST(? AS BIGINT))");
        }
        String micros = "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', s.now)";
        // Only a takeable row is updated: a duplicate leaves its row as it is and is not returned; the caller
        // reads it afterwards.
        return "SELECT " + RETURNED + " FROM FINAL TABLE (MERGE INTO " + table + " AS t USING"
                + " (SELECT v.ns, v.k, v.lease, v.expiry, v.fp, v.claim_id, CURRENT_TIMESTAMP AS now"
                + " FROM (VALUES " + values + ") AS v(ns, k, lease, expiry, fp, claim_id)) AS s"
                + " ON t.namespace = s.ns AND t.record_key = s.k"
                + " WHEN MATCHED AND " + takeable("t.", "s.now") + " THEN UPDATE SET"
                + " takeovers = " + takeovers("t.", "s.now") + ", state = " + state(completed) + ","
                + " token = GREATEST(t.token + 1, " + micros + "), lease_until = DATEADD(MICROSECOND, s.lease, s.now),"
                + " expires_at = DATEADD(MICROSECOND, s.expiry, s.now), fingerprint = s.fp, result = NULL,"
                + " claim_id = s.claim_id, created_at = s.now, completed_at = " + (completed ? "s.now" : "NULL")
                + " WHEN NOT MATCHED THEN INSERT (" + INSERTED + ") VALUES (s.ns, s.k, " + state(completed) + ", "
                + micros + ", DATEADD(MICROSECOND, s.lease, s.now), DATEADD(MICROSECOND, s.expiry, s.now), s.fp, NULL,"
                + " s.claim_id, 0, s.now, " + (completed ? "s.now" : "NULL") + "))";
    }

    /** Binds namespace or key: bytes for MariaDB's binary columns, text elsewhere. */
    public void bindText(PreparedStatement ps, int index, String value) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, value);
        }
    }

    String readText(ResultSet rs, int index) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            byte[] bytes = rs.getBytes(index);
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }
        return rs.getString(index);
    }

    /** Reads a time column as an instant; never through java.sql.Timestamp, which would apply the JVM's zone. */
    Instant readInstant(ResultSet rs, int index) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            LocalDateTime utc = rs.getObject(index, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
