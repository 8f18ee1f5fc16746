package io.github.once.outbox.internal;

import io.github.once.jdbc.JdbcDialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's side of the outbox table: claims batches under a lease and settles them, each in a short
 * transaction of its own. Nothing is held open while messages are published.
 */
public final class OutboxTable {
    private static final Logger log = LoggerFactory.getLogger(OutboxTable.class);
    private static final int MAX_ERROR = 1000;

    private final DataSource dataSource;
    private final OutboxSql sql;

    OutboxTable(DataSource dataSource, OutboxSql sql) {
        this.dataSource = dataSource;
        this.sql = sql;
    }

    public OutboxSql sql() {
        return sql;
    }

    /** One settled row: what to write back after its publish. */
    public record Settlement(ClaimedRow row, PublishOutcome outcome) {
    }

    /** Decisions taken while settling, for logs and listeners once they are committed. */
    public record Settled(List<ClaimedRow> sent, List<ClaimedRow> retried, List<ClaimedRow> parked) {
    }

    /**
     * Takes up to {@code limit} due rows that no live lease holds and puts them under {@code owner}'s lease.
     * Ordered, an aggregate's rows are taken only as the head of its unsent rows: a row stays behind while an
     * earlier one of its aggregate is unsent and not taken in this claim, so no two relays hold one aggregate.
     */
    public List<ClaimedRow> claim(String owner, int limit, Duration lease, boolean ordered) {
        return inTransaction("claim", c -> {
            List<ClaimedRow> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.candidates)) {
                ps.setInt(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(read(rs));
                    }
                }
            }
            if (ordered) {
                rows = headsOfAggregates(c, rows);
            }
            if (!rows.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(sql.lease(rows.size()))) {
                    ps.setString(1, owner);
                    ps.setLong(2, micros(lease));
                    for (int i = 0; i < rows.size(); i++) {
                        ps.setLong(3 + i, rows.get(i).id());
                    }
                    ps.executeUpdate();
                }
            }
            return rows;
        });
    }

    private ClaimedRow read(ResultSet rs) throws SQLException {
        Duration age = Duration.between(sql.readInstant(rs, "created_at"), sql.readInstant(rs, "db_now"));
        return new ClaimedRow(rs.getLong("id"), rs.getString("message_id"), rs.getString("exchange_name"),
                rs.getString("routing_key"), PropertiesCodec.decode(rs.getBytes("properties")), rs.getBytes("body"),
                rs.getString("aggregate_key"), rs.getInt("attempts"), age.isNegative() ? Duration.ZERO : age);
    }

    private List<ClaimedRow> headsOfAggregates(Connection c, List<ClaimedRow> candidates) throws SQLException {
        Set<String> keys = new LinkedHashSet<>();
        Set<Long> ids = new HashSet<>();
        long maxId = 0;
        for (ClaimedRow r : candidates) {
            if (r.aggregateKey() != null) {
                keys.add(r.aggregateKey());
                ids.add(r.id());
                maxId = Math.max(maxId, r.id());
            }
        }
        if (keys.isEmpty()) {
            return candidates;
        }
        Set<Long> accepted = new HashSet<>();
        Map<String, Boolean> blocked = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.unsentOfAggregates(keys.size()))) {
            int i = 1;
            for (String k : keys) {
                ps.setString(i++, k);
            }
            ps.setLong(i, maxId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(1);
                    long id = rs.getLong(2);
                    if (blocked.getOrDefault(key, false) || !ids.contains(id)) {
                        blocked.put(key, true);
                    } else {
                        accepted.add(id);
                    }
                }
            }
        }
        List<ClaimedRow> kept = new ArrayList<>(candidates.size());
        for (ClaimedRow r : candidates) {
            if (r.aggregateKey() == null || accepted.contains(r.id())) {
                kept.add(r);
            }
        }
        return kept;
    }

    /**
     * Writes back a round's outcomes in one transaction: confirmed rows sent (or deleted), returned and refused
     * rows due again after a back-off or parked, unknown and held-back rows given back for another try.
     */
    public Settled settle(String owner, List<Settlement> settlements, RetrySchedule retries, boolean deleteSent) {
        return inTransaction("settle", c -> {
            List<ClaimedRow> sent = new ArrayList<>();
            List<ClaimedRow> retried = new ArrayList<>();
            List<ClaimedRow> parked = new ArrayList<>();
            try (PreparedStatement retry = c.prepareStatement(sql.retry);
                 PreparedStatement park = c.prepareStatement(sql.park);
                 PreparedStatement giveBack = c.prepareStatement(sql.giveBack)) {
                for (Settlement s : settlements) {
                    ClaimedRow row = s.row();
                    if (s.outcome() instanceof PublishOutcome.Confirmed) {
                        sent.add(row);
                    } else if (s.outcome() instanceof PublishOutcome.Rejected rejected) {
                        int failed = row.attempts() + 1;
                        if (retries.exhausted(failed)) {
                            bindOwned(park, 1, trim(rejected.reason()), row, owner);
                            park.addBatch();
                            parked.add(row);
                        } else {
                            retry.setLong(1, micros(retries.delayAfter(failed)));
                            bindOwned(retry, 2, trim(rejected.reason()), row, owner);
                            retry.addBatch();
                            retried.add(row);
                        }
                    } else if (s.outcome() instanceof PublishOutcome.Unknown unknown) {
                        giveBack.setLong(1, micros(retries.initialDelay()));
                        bindOwned(giveBack, 2, trim(unknown.reason()), row, owner);
                        giveBack.addBatch();
                    } else {
                        giveBack.setLong(1, 0);
                        bindOwned(giveBack, 2, null, row, owner);
                        giveBack.addBatch();
                    }
                }
                if (!retried.isEmpty()) {
                    retry.executeBatch();
                }
                if (!parked.isEmpty()) {
                    park.executeBatch();
                }
                if (sent.size() + retried.size() + parked.size() < settlements.size()) {
                    giveBack.executeBatch();
                }
            }
            if (!sent.isEmpty()) {
                String statement = deleteSent ? sql.deleteSent(sent.size()) : sql.markSent(sent.size());
                try (PreparedStatement ps = c.prepareStatement(statement)) {
                    for (int i = 0; i < sent.size(); i++) {
                        ps.setLong(1 + i, sent.get(i).id());
                    }
                    ps.executeUpdate();
                }
            }
            return new Settled(sent, retried, parked);
        });
    }

    /** Parameters error, id, owner from {@code index} on. */
    private static void bindOwned(PreparedStatement ps, int index, String error, ClaimedRow row, String owner)
            throws SQLException {
        ps.setString(index, error);
        ps.setLong(index + 1, row.id());
        ps.setString(index + 2, owner);
    }

    /** Deletes one batch of rows sent longer ago than {@code retention}; returns how many. */
    public int purgeSent(Duration retention, int limit) {
        return inTransaction("purge", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.purge)) {
                ps.setLong(1, -micros(retention));
                ps.setInt(2, limit);
                return ps.executeUpdate();
            }
        });
    }

    private static String trim(String error) {
        return error == null || error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR);
    }

    static long micros(Duration d) {
        return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
    }

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in a short read-committed transaction of its own (no gap locks on MariaDB). */
    private <T> T inTransaction(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            c.setAutoCommit(false);
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                throw e;
            } finally {
                restore(c, autoCommit, isolation);
            }
        } catch (SQLException e) {
            throw JdbcDialect.translate("outbox " + operation, e);
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("Rollback after a failed outbox statement failed too", e);
        }
    }

    private static void restore(Connection c, boolean autoCommit, int isolation) {
        try {
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(isolation);
            }
            c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            log.debug("Could not restore the connection's settings", e);
        }
    }

    public JdbcDialect dialect() {
        return sql.dialect;
    }
}
