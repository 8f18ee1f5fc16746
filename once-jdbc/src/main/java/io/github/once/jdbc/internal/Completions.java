package io.github.once.jdbc.internal;

import io.github.once.jdbc.JdbcDialect;
import io.github.once.spi.Completion;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Runs batch completion statements on a connection the caller manages (its transaction, its commit). */
public final class Completions {

    private final Sql sql;
    private final int queryTimeoutSeconds;

    Completions(Sql sql, int queryTimeoutSeconds) {
        this.sql = sql;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    /**
     * True when {@code completions} need one statement and nothing after it: keys all different, at most
     * {@value Claims#MAX_ROWS}, and on MariaDB a single one (for more, when only some were recorded, MariaDB reads
     * back which in a second statement, inside the same transaction).
     */
    public static boolean oneStatement(JdbcDialect dialect, List<Completion> completions) {
        if (completions.size() == 1) {
            return true;
        }
        return dialect != JdbcDialect.MARIADB
                && Claims.distinctAndFew(completions.stream().map(completion -> completion.lease().key()).toList());
    }

    /**
     * Completes every lease, answering as single completions in order would. Distinct keys go in one statement; a
     * key seen again goes in a later statement, so it sees the earlier completion (and answers false after it).
     *
     * @param checkLease false when this transaction holds the claimed rows (transactional mode): the lease
     *                   deadline does not matter then
     */
    List<Boolean> completeAll(Connection c, List<Completion> completions, boolean checkLease) throws SQLException {
        List<List<Integer>> rounds = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < completions.size(); i++) {
            int round = seen.merge(Claims.id(completions.get(i).lease().key()), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(i);
        }
        Boolean[] done = new Boolean[completions.size()];
        for (List<Integer> round : rounds) {
            for (int from = 0; from < round.size(); from += Claims.MAX_ROWS) {
                List<Integer> chunk = round.subList(from, Math.min(round.size(), from + Claims.MAX_ROWS));
                List<Completion> batch = new ArrayList<>(chunk.size());
                for (int index : chunk) {
                    batch.add(completions.get(index));
                }
                boolean[] answers = completeDistinct(c, batch, checkLease);
                for (int j = 0; j < chunk.size(); j++) {
                    done[chunk.get(j)] = answers[j];
                }
            }
        }
        return List.of(done);
    }

    /** One statement for leases of keys that are all different. */
    private boolean[] completeDistinct(Connection c, List<Completion> batch, boolean checkLease) throws SQLException {
        Set<String> completed = new HashSet<>();
        long marker = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        int count;
        try (PreparedStatement ps = c.prepareStatement(sql.completeAll(batch.size(), checkLease))) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            // Bind in key order so that concurrent batches lock rows in the same order.
            Integer[] order = new Integer[batch.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, Comparator.comparing(i -> Claims.id(batch.get(i).lease().key())));
            int p = 1;
            for (int i : order) {
                Completion completion = batch.get(i);
                sql.bindText(ps, p++, completion.lease().key().namespace());
                sql.bindText(ps, p++, completion.lease().key().storageId());
                ps.setLong(p++, completion.lease().token());
                ps.setBytes(p++, completion.result());
                ps.setLong(p++, Claims.micros(completion.retention()));
            }
            if (sql.dialect != JdbcDialect.MARIADB) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        completed.add(sql.readText(rs, 1) + '\u0000' + sql.readText(rs, 2));
                    }
                }
                return answers(batch, completed);
            }
            ps.setLong(p, marker);
            count = ps.executeUpdate();
        }
        boolean[] all = new boolean[batch.size()];
        if (count == 0 || count == batch.size()) {
            // The count alone tells: the common case costs one statement.
            Arrays.fill(all, count > 0);
            return all;
        }
        // Some but not all: read back the rows this transaction stamped (its own writes, visible at any isolation).
        try (PreparedStatement ps = c.prepareStatement(sql.completedWith(batch.size()))) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setLong(1, marker);
            int p = 2;
            for (Completion completion : batch) {
                sql.bindText(ps, p++, completion.lease().key().namespace());
                sql.bindText(ps, p++, completion.lease().key().storageId());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    completed.add(sql.readText(rs, 1) + '\u0000' + sql.readText(rs, 2));
                }
            }
        }
        return answers(batch, completed);
    }

    private static boolean[] answers(List<Completion> batch, Set<String> completed) {
        boolean[] answers = new boolean[batch.size()];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = completed.contains(Claims.id(batch.get(i).lease().key()));
        }
        return answers;
    }
}
