package io.github.once.jdbc.internal;

import io.github.once.StoreMisconfiguredException;
import io.github.once.jdbc.JdbcIdempotencyStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Checks at start that the record table exists with every column Once uses, so a missing migration fails before
 * the first message with every script to run, not on the first delivery.
 */
public final class TableCheck {

    /** The columns each schema script adds, in the order of {@code JdbcDialect.migrationResources()}. */
    static final List<List<String>> COLUMNS = List.of(
            List.of("namespace", "record_key", "state", "token", "lease_until", "expires_at", "fingerprint", "result",
                    "claim_id", "created_at", "completed_at"),
            List.of("takeovers"));

    private TableCheck() {
    }

    /**
     * @throws StoreMisconfiguredException  when the table or a column is missing, or may not be read
     * @throws io.github.once.StoreUnavailableException when the database cannot be reached
     */
    public static void verify(RecordTable table) {
        Sql sql = table.sql;
        List<String> resources = sql.dialect.migrationResources();
        String script = String.join(" then ", resources);
        Set<String> found = new HashSet<>();
        try (Connection c = table.dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM " + sql.table + " WHERE 1 = 0")) {
            ps.setQueryTimeout(table.queryTimeoutSeconds);
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    found.add(meta.getColumnName(i).toLowerCase(Locale.ROOT));
                }
            }
        } catch (SQLException e) {
            if (SqlErrors.isMisconfigured(e) && !e.getSQLState().startsWith("28")) {
                throw new StoreMisconfiguredException("The record table '" + sql.table + "' cannot be read ("
                        + "SQLState " + e.getSQLState() + ": " + e.getMessage() + "). Create it: run " + script
                        + " (in the once-jdbc jar; replace once_record if you set another tableName) with your"
                        + " migrations, or set createTableIfMissing(true) on JdbcIdempotencyStore.builder for a"
                        + " demo. If it exists, grant the database user SELECT, INSERT, UPDATE and DELETE on it.", e);
            }
            throw SqlErrors.translate("the start-up check of table " + sql.table, e);
        }
        List<String> missing = new ArrayList<>();
        List<String> scripts = new ArrayList<>();
        for (int i = 0; i < COLUMNS.size(); i++) {
            List<String> lacking = COLUMNS.get(i).stream().filter(c -> !found.contains(c)).toList();
            if (!lacking.isEmpty()) {
                missing.addAll(lacking);
                scripts.add(resources.get(i));
            }
        }
        if (!missing.isEmpty()) {
            throw new StoreMisconfiguredException("The record table '" + sql.table + "' lacks the column(s) "
                    + String.join(", ", missing) + ". Apply " + String.join(" and ", scripts) + " (in the once-jdbc"
                    + " jar; the full schema is " + String.join(", ", resources) + ", in that order) with a"
                    + " migration, or point tableName at a table made by them.");
        }
    }
}
