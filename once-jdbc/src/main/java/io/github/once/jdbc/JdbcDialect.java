package io.github.once.jdbc;

import io.github.once.OnceException;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.internal.SqlErrors;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/** The databases Once speaks to. Each has its own schema file and its own single-statement claim. */
public enum JdbcDialect {
    /**
     * PostgreSQL 9.6 or later: {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING}, and the second schema script's
     * {@code ADD COLUMN IF NOT EXISTS}.
     */
    POSTGRESQL("postgresql"),
    /** MariaDB 10.5 or later: {@code INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING}. */
    MARIADB("mariadb"),
    /** H2 2.x: {@code SELECT ... FROM FINAL TABLE (MERGE INTO ... USING ...)}. */
    H2("h2");

    private final String folder;

    JdbcDialect(String folder) {
        this.folder = folder;
    }

    /**
     * The classpath location of this dialect's first schema file, the table as V1 created it; the full schema is
     * {@link #migrationResources()}.
     */
    public String schemaResource() {
        return "db/once/" + folder + "/V1__once_record.sql";
    }

    /**
     * Every schema file of this dialect in the order they apply, ready for a Flyway or Liquibase folder: V1 creates
     * the table, V2 adds the {@code takeovers} column the claim counts crash loops with.
     */
    public List<String> migrationResources() {
        return List.of(schemaResource(), "db/once/" + folder + "/V2__once_takeovers.sql");
    }

    /**
     * Sorts a failed statement on one of these databases by the rules the JDBC store itself uses, for code that
     * runs its own statements beside it (the outbox, tools): {@link StoreUnavailableException} when the database
     * cannot be reached or is shutting down (waiting helps), {@link StoreMisconfiguredException} for a setup mistake
     * (a missing table or column, a permission, credentials; waiting does not help), {@link OnceException} for
     * anything else.
     *
     * @param operation what failed, for the message (e.g. {@code "outbox claim"})
     */
    public static OnceException translate(String operation, SQLException e) {
        return SqlErrors.translateStatement(operation, e);
    }

    /** Picks the dialect from the connection's metadata. */
    public static JdbcDialect detect(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName();
        String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb")) {
            return MARIADB;
        }
        if (name.contains("mysql")) {
            // MariaDB servers reached through a MySQL driver report "MySQL" with a MariaDB version string.
            String version = String.valueOf(meta.getDatabaseProductVersion()).toLowerCase(Locale.ROOT);
            if (version.contains("mariadb")) {
                return MARIADB;
            }
            throw new IllegalArgumentException("dialect: MySQL (" + meta.getDatabaseProductVersion()
                    + ") lacks INSERT ... RETURNING, which the claim needs; use MariaDB 10.5 or later");
        }
        if (name.contains("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("dialect: unsupported database '" + product
                + "'; supported are PostgreSQL, MariaDB and H2");
    }
}
