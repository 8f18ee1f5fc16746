package io.github.once.jdbc.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Runs claim statements on a connection the caller manages (its transaction, its commit). */
public final class Claims {

    /** SQLState of a serialization failure, which {@link SqlErrors#isRace} counts as a lost race. */
    static final String SERIALIZATION_FAILURE = "40001";
    /** Rows per statement: well under every driver's parameter limit. */
    static final int MAX_ROWS = 500;

    private final Sql sql;
    private final int queryTimeoutSeconds;

    Claims(Sql sql, int queryTimeoutSeconds) {
        this.sql = sql;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    /**
     * Claims every request, answering as single claims in order would. Distinct keys go in one statement; a key
     * seen again goes in a later statement, so it sees the earlier claim.
     */
    List<ClaimResult> claimAll(Connection c, List<ClaimRequest> requests, boolean completed) throws SQLException {
        List<List<Integer>> rounds = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            int round = seen.merge(id(requests.get(i).key()), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(i);
        }
        ClaimResult[] results = new ClaimResult[requests.size()];
        for (List<Integer> round : rounds) {
            for (int from = 0; from < round.size(); from += MAX_ROWS) {
                List<Integer> chunk = round.subList(from, Math.min(round.size(), from + MAX_ROWS));
                List<ClaimRequest> batch = new ArrayList<>(chunk.size());
                for (int index : chunk) {
                    batch.add(requests.get(index));
                }
                List<ClaimResult> answers = claimDistinct(c, batch, completed);
                for (int j = 0; j < chunk.size(); j++) {
                    results[chunk.get(j)] = answers.get(j);
                }
            }
        }
        return List.of(results);
    }

    /** True when {@code requests} go in one claim statement: every key different, at most {@value #MAX_ROWS}. */
    public static boolean oneStatement(List<ClaimRequest> requests) {
        return requests.size() == 1 || distinctAndFew(requests.stream().map(ClaimRequest::key).toList());
    }

    /** Every key different, and at most {@value #MAX_ROWS} of them: what one claim or completion statement takes. */
    static boolean distinctAndFew(List<IdempotencyKey> keys) {
        if (keys.size() > MAX_ROWS) {
            return false;
        }
        Set<String> seen = new HashSet<>();
        for (IdempotencyKey key : keys) {
            if (!seen.add(id(key))) {
                return false;
            }
        }
        return true;
    }

    /**
     * One statement for keys that are all different, inside the caller's transaction. A key whose row the
     * statement left alone and this transaction no longer sees held is reported as a serialization failure (see
     * {@link #claimOrUnseen}), which callers answer like any lost race.
     */
    public List<ClaimResult> claimDistinct(Connection c, List<ClaimRequest> requests, boolean completed)
            throws SQLException {
        List<ClaimResult> answers = claimOrUnseen(c, requests, completed);
        for (int i = 0; i < answers.size(); i++) {
            if (answers.get(i) == null) {
                throw new SQLException("the row of " + requests.get(i).key() + " in " + sql.table + " changed after"
                        + " this transaction's snapshot", SERIALIZATION_FAILURE);
            }
        }
        return answers;
    }

    /**
     * One statement for keys that are all different: each answer, or null for a key whose row the statement left
     * alone and a fresh read no longer finds completed or under a live lease (released, expired or deleted
     * meanwhile; or, under REPEATABLE READ, not visible to this transaction's older snapshot). Such a key may be
     * claimed again.
     */
    List<ClaimResult> claimOrUnseen(Connection c, List<ClaimRequest> requests, boolean completed) throws SQLException {
        long[] claimIds = new long[requests.size()];
        for (int i = 0; i < claimIds.length; i++) {
            claimIds[i] = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        }
        Map<String, Row> rows = new HashMap<>();
        List<Integer> left = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            left.add(i);
        }
        // A batch inserts its new keys first, by a plain insert, and sends only the keys that have a row through the
        // full claim: one statement more when the batch holds a duplicate. A single key keeps the one statement,
        // whose look-up costs a new key less than a second round trip costs a duplicate.
        String newKeys = requests.size() > 1 ? sql.claimNewKeys(requests.size(), completed) : null;
        if (newKeys != null) {
            run(c, newKeys, requests, left, claimIds, rows);
            left.removeIf(i -> rows.containsKey(id(requests.get(i).key())));
        }
        if (!left.isEmpty()) {
            run(c, sql.claim(left.size(), completed), requests, left, claimIds, rows);
        }
        List<ClaimResult> results = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            ClaimRequest r = requests.get(i);
            Row row = rows.get(id(r.key()));
            if (row == null) {
                row = heldRow(c, r);
            }
            results.add(row == null ? null : answer(r, row, claimIds[i]));
        }
        return results;
    }

    /** Runs claim statement {@code statement} for the requests at {@code indexes}, putting the rows it returns. */
    private void run(Connection c, String statement, List<ClaimRequest> requests, List<Integer> indexes,
                     long[] claimIds, Map<String, Row> rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            // Bind in key order so that concurrent batches lock rows in the same order and cannot deadlock.
            Integer[] order = indexes.toArray(Integer[]::new);
            Arrays.sort(order, Comparator.comparing(i -> id(requests.get(i).key())));
            int p = 1;
            for (int i : order) {
                ClaimRequest r = requests.get(i);
                long lease = micros(r.leaseDuration());
                sql.bindText(ps, p++, r.key().namespace());
                sql.bindText(ps, p++, r.key().storageId());
                ps.setLong(p++, lease);
                ps.setLong(p++, Math.max(lease, micros(r.retention())));
                ps.setString(p++, r.fingerprint());
                ps.setLong(p++, claimIds[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(sql.readText(rs, 1) + '\u0000' + sql.readText(rs, 2), row(rs));
                }
            }
        }
    }

    /**
     * The claim left a row unchanged without returning it: the row is completed or under a live lease (H2 returns
     * only rows it wrote; PostgreSQL saw the row become untakeable after its snapshot). A fresh statement reads it
     * under READ COMMITTED. Null when this transaction cannot see it (REPEATABLE READ with an older snapshot) or it
     * became takeable meanwhile.
     */
    private Row heldRow(Connection c, ClaimRequest r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.heldRow())) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            sql.bindText(ps, 1, r.key().namespace());
            sql.bindText(ps, 2, r.key().storageId());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? row(rs) : null;
            }
        }
    }

    private Row row(ResultSet rs) throws SQLException {
        long claimId = rs.getLong(9);
        claimId = rs.wasNull() ? 0 : claimId;
        return new Row(RecordState.valueOf(rs.getString(3)), rs.getLong(4), sql.readInstant(rs, 5),
                sql.readInstant(rs, 6), rs.getString(7), rs.getBytes(8), claimId, Math.max(0, rs.getInt(10)));
    }

    private static ClaimResult answer(ClaimRequest r, Row row, long claimId) {
        // Only this statement wrote its random claim id: the row is taken (in progress, or completed when the claim
        // writes it so, see Sql#claim).
        if (row.claimId == claimId) {
            return new ClaimResult.Acquired(new Lease(r.key(), row.token, row.leaseUntil), row.takeovers);
        }
        // Not taken, so the row was completed or held by a live lease when the statement locked it.
        IdempotencyRecord record = row.record(r.key());
        if (conflicts(row.fingerprint, r.fingerprint())) {
            return new ClaimResult.Conflict(record);
        }
        return row.state == RecordState.COMPLETED ? new ClaimResult.Duplicate(record) : new ClaimResult.Busy(row.leaseUntil);
    }

    static boolean conflicts(String stored, String offered) {
        return stored != null && offered != null && !stored.equals(offered);
    }

    static String id(IdempotencyKey key) {
        return key.namespace() + '\u0000' + key.storageId();
    }

    /** Microseconds, at least 1 and at most about a century (beyond that no date column can hold the deadline). */
    static long micros(java.time.Duration d) {
        long century = 100L * 366 * 24 * 3600 * 1_000_000L;
        if (d.getSeconds() >= century / 1_000_000L) {
            return century;
        }
        return Math.max(1, d.getSeconds() * 1_000_000L + d.getNano() / 1_000);
    }

    record Row(RecordState state, long token, Instant leaseUntil, Instant expiresAt, String fingerprint, byte[] result,
               long claimId, int takeovers) {
        IdempotencyRecord record(IdempotencyKey key) {
            return new IdempotencyRecord(Objects.requireNonNull(key), state, token, leaseUntil, fingerprint, result, expiresAt);
        }
    }
}
