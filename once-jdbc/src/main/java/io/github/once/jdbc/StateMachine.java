package io.github.once.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Status transitions of rows in a table of yours, with optimistic locking: one statement of the form
 * {@code UPDATE t SET status = ?, version = version + 1 WHERE id = ? AND status IN (<allowed sources>)
 * [AND version = ?]}, whose answer is a {@link Transition}: applied, already in the target state (a duplicate),
 * a conflict with the state found, or a missing row.
 *
 * <pre>{@code
 * StateMachine orders = StateMachine.builder("orders")             // columns id, status, version by default
 *         .transition("new", "processing")
 *         .transition("failed", "processing")                       // a retry after a failure may start again
 *         .transition("processing", "paid")
 *         .transition("processing", "failed")
 *         .inFlight("processing", Duration.ofMinutes(5))            // with .deadlineColumn("processing_until")
 *         .deadlineColumn("processing_until")
 *         .build();
 * Transition t = orders.move(connection, orderId, "processing");
 * }</pre>
 *
 * <p>Two traps are closed by design. A status set before the work and never finished after a crash (a row stuck
 * in {@code processing}) is recovered either by running the move and the work in one transaction (the move rolls
 * back with the work) or by an in-flight deadline: a row in an {@link Builder#inFlight in-flight} state whose
 * deadline (database clock) has passed may be moved into that state again. And the sources of a move are the
 * declared transitions into its target, not one state the caller names: a row left in {@code failed} by an
 * earlier attempt does not make a retry's move miss forever, as long as {@code failed -> processing} is declared.
 *
 * <p>Identifiers are checked ({@code [A-Za-z_][A-Za-z0-9_]*}, a table optionally with its schema), never quoted.
 * States are stored as text; versions as a whole number; the deadline column, when used, is a timestamp that only
 * this class writes and reads, by the database's clock in UTC (a {@code TIMESTAMP} without time zone). Thread-safe; it holds no connection.
 */
public final class StateMachine {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern TABLE = Pattern.compile(IDENTIFIER.pattern() + "(\\." + IDENTIFIER.pattern() + ")?");

    private final String table;
    private final String id;
    private final String status;
    private final String version;
    private final String deadline;
    private final Map<String, Set<String>> sources;
    private final Map<String, Duration> inFlight;
    private final JdbcDialect fixedDialect;

    private StateMachine(Builder b) {
        this.table = b.table;
        this.id = b.id;
        this.status = b.status;
        this.version = b.version;
        this.deadline = b.deadline;
        Map<String, Set<String>> copy = new LinkedHashMap<>();
        b.sources.forEach((to, from) -> copy.put(to, Collections.unmodifiableSet(new LinkedHashSet<>(from))));
        this.sources = Collections.unmodifiableMap(copy);
        this.inFlight = Map.copyOf(b.inFlight);
        this.fixedDialect = b.dialect;
    }

    public static Builder builder(String table) {
        return new Builder(table);
    }

    /** The states a row may be moved to {@code to} from. */
    public Set<String> sourcesOf(String to) {
        return sources.getOrDefault(to, Set.of());
    }

    /**
     * Moves the row {@code rowId} to {@code to} from any state declared as a source of {@code to} (and, for an
     * in-flight target, from {@code to} itself once its deadline has passed). Runs on {@code connection} as it
     * is: inside the caller's transaction when auto-commit is off.
     *
     * @throws IllegalArgumentException when no transition into {@code to} is declared
     */
    public Transition move(Connection connection, Object rowId, String to) throws SQLException {
        return move(connection, rowId, to, null);
    }

    /**
     * As {@link #move(Connection, Object, String)}, and only if the row is still at {@code expectedVersion} (read
     * by the caller earlier): a row moved in between is a {@link Transition.Conflict}, or a
     * {@link Transition.Duplicate} when it already is in {@code to}.
     */
    public Transition move(Connection connection, Object rowId, String to, long expectedVersion) throws SQLException {
        return move(connection, rowId, to, Long.valueOf(expectedVersion));
    }

    private Transition move(Connection connection, Object rowId, String to, Long expectedVersion) throws SQLException {
        Objects.requireNonNull(rowId, "rowId");
        Set<String> from = sourcesOf(Objects.requireNonNull(to, "to"));
        if (from.isEmpty()) {
            throw new IllegalArgumentException("no transition into '" + to + "' is declared; declared targets: "
                    + sources.keySet());
        }
        JdbcDialect dialect = fixedDialect != null ? fixedDialect : JdbcDialect.detect(connection);
        Duration flight = inFlight.get(to);
        List<Object> params = new ArrayList<>();
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ").append(status)
                .append(" = ?, ").append(version).append(" = ").append(version).append(" + 1");
        params.add(to);
        if (deadline != null) {
            sql.append(", ").append(deadline).append(" = ");
            if (flight != null) {
                sql.append(plusMillis(dialect));
                params.add(flight.toMillis());
            } else {
                sql.append("NULL");
            }
        }
        sql.append(" WHERE ").append(id).append(" = ? AND (").append(status).append(" IN (")
                .append(String.join(", ", Collections.nCopies(from.size(), "?"))).append(')');
        params.add(rowId);
        params.addAll(from);
        if (flight != null && !from.contains(to)) {
            sql.append(" OR (").append(status).append(" = ? AND ").append(deadline).append(" < ")
                    .append(now(dialect)).append(')');
            params.add(to);
        }
        sql.append(')');
        if (expectedVersion != null) {
            sql.append(" AND ").append(version).append(" = ?");
            params.add(expectedVersion);
        }
        Long moved = update(connection, dialect, sql.toString(), params, rowId);
        if (moved != null) {
            return new Transition.Applied(to, moved);
        }
        return answerUnmoved(connection, rowId, to);
    }

    /** The version after the update, or null when no row was updated. */
    private Long update(Connection connection, JdbcDialect dialect, String sql, List<Object> params, Object rowId)
            throws SQLException {
        String returning = switch (dialect) {
            case POSTGRESQL -> sql + " RETURNING " + version;
            case H2 -> "SELECT " + version + " FROM FINAL TABLE (" + sql + ")";
            case MARIADB -> null; // no UPDATE ... RETURNING: read back below, under the row lock where in a transaction
        };
        if (returning != null) {
            try (PreparedStatement ps = prepare(connection, returning, params); ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
        int updated;
        try (PreparedStatement ps = prepare(connection, sql, params)) {
            updated = ps.executeUpdate();
        }
        if (updated == 0) {
            return null;
        }
        try (PreparedStatement ps = prepare(connection, "SELECT " + version + " FROM " + table + " WHERE " + id
                + " = ?", List.of(rowId)); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }

    private Transition answerUnmoved(Connection connection, Object rowId, String to) throws SQLException {
        String sql = "SELECT " + status + ", " + version + " FROM " + table + " WHERE " + id + " = ?";
        try (PreparedStatement ps = prepare(connection, sql, List.of(rowId)); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return new Transition.Missing(rowId);
            }
            String found = rs.getString(1);
            long foundVersion = rs.getLong(2);
            return to.equals(found) ? new Transition.Duplicate(found, foundVersion)
                    : new Transition.Conflict(String.valueOf(found), foundVersion);
        }
    }

    private static PreparedStatement prepare(Connection connection, String sql, List<Object> params)
            throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < params.size(); i++) {
                ps.setObject(i + 1, params.get(i));
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    private static String now(JdbcDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "(clock_timestamp() AT TIME ZONE 'UTC')";
            case MARIADB -> "UTC_TIMESTAMP(6)";
            case H2 -> "LOCALTIMESTAMP";
        };
    }

    private static String plusMillis(JdbcDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "(clock_timestamp() AT TIME ZONE 'UTC') + CAST(? AS BIGINT) * INTERVAL '1 millisecond'";
            case MARIADB -> "UTC_TIMESTAMP(6) + INTERVAL ? * 1000 MICROSECOND";
            case H2 -> "DATEADD(MILLISECOND, CAST(? AS BIGINT), LOCALTIMESTAMP)";
        };
    }

    /** Builds a {@link StateMachine}; every setting is checked when it is given. */
    public static final class Builder {
        private final String table;
        private String id = "id";
        private String status = "status";
        private String version = "version";
        private String deadline;
        private final Map<String, Set<String>> sources = new LinkedHashMap<>();
        private final Map<String, Duration> inFlight = new LinkedHashMap<>();
        private JdbcDialect dialect;

        private Builder(String table) {
            if (table == null || !TABLE.matcher(table).matches()) {
                throw new IllegalArgumentException("table must be an identifier ([A-Za-z_][A-Za-z0-9_]*, up to 63"
                        + " characters), optionally schema-qualified, but was '" + table + "'");
            }
            this.table = table;
        }

        public Builder idColumn(String column) {
            this.id = column(column, "idColumn");
            return this;
        }

        public Builder statusColumn(String column) {
            this.status = column(column, "statusColumn");
            return this;
        }

        public Builder versionColumn(String column) {
            this.version = column(column, "versionColumn");
            return this;
        }

        /** A timestamp column holding the deadline of an in-flight state; needed by {@link #inFlight}. */
        public Builder deadlineColumn(String column) {
            this.deadline = column(column, "deadlineColumn");
            return this;
        }

        /** Declares that a row in {@code from} may be moved to {@code to}. */
        public Builder transition(String from, String to) {
            sources.computeIfAbsent(state(to, "to"), k -> new LinkedHashSet<>()).add(state(from, "from"));
            return this;
        }

        /**
         * Declares {@code state} a state of work in progress: a move into it sets the deadline column to now plus
         * {@code deadline} (database clock), and once that has passed the row may be moved into {@code state}
         * again, as a crashed worker's row must be. Moves into any other state clear the deadline.
         */
        public Builder inFlight(String state, Duration deadline) {
            Objects.requireNonNull(deadline, "deadline");
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("the deadline of in-flight state '" + state
                        + "' must be positive, but was " + deadline);
            }
            inFlight.put(state(state, "state"), deadline);
            return this;
        }

        /** The database, when it should not be read from each connection's metadata. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** @throws IllegalStateException when no transition is declared, or an in-flight state lacks a deadline column */
        public StateMachine build() {
            if (sources.isEmpty()) {
                throw new IllegalStateException("declare at least one transition");
            }
            if (!inFlight.isEmpty() && deadline == null) {
                throw new IllegalStateException("in-flight states " + inFlight.keySet() + " need a deadlineColumn");
            }
            for (String state : inFlight.keySet()) {
                if (!sources.containsKey(state)) {
                    throw new IllegalStateException("in-flight state '" + state + "' has no transition into it");
                }
            }
            return new StateMachine(this);
        }

        private static String column(String column, String what) {
            if (column == null || !IDENTIFIER.matcher(column).matches()) {
                throw new IllegalArgumentException(what + " must be an identifier ([A-Za-z_][A-Za-z0-9_]*, up to 63"
                        + " characters), but was '" + column + "'");
            }
            return column;
        }

        private static String state(String state, String what) {
            if (state == null || state.isEmpty()) {
                throw new IllegalArgumentException(what + ": a state must be non-empty text");
            }
            return state;
        }
    }

    /**
     * The answer to one {@link StateMachine#move} of a row: every case a value, so no caller guesses from an update
     * count.
     */
    public sealed interface Transition {

        /** This call moved the row to {@code state}; {@code version} is the row's version after the move. */
        record Applied(String state, long version) implements Transition {
            public Applied {
                Objects.requireNonNull(state, "state");
            }
        }

        /**
         * The row was already in the target state (a repeat of a move that was applied before, or, for an in-flight
         * state whose deadline has not passed, work that runs elsewhere): nothing was changed.
         */
        record Duplicate(String state, long version) implements Transition {
            public Duplicate {
                Objects.requireNonNull(state, "state");
            }
        }

        /**
         * The row is in another state than the move allows from (someone else moved it), or at another version than
         * the caller expected: nothing was changed. {@code state} and {@code version} are what the row holds now.
         */
        record Conflict(String state, long version) implements Transition {
            public Conflict {
                Objects.requireNonNull(state, "state");
            }
        }

        /** No row has the id. */
        record Missing(Object id) implements Transition {
        }
    }
}
