package io.github.once.outbox.internal;

import io.github.once.jdbc.JdbcDialect;
import io.github.once.outbox.Outbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates the outbox table from the shipped schema file, for tests, demos and applications without a migration
 * tool. With Flyway or Liquibase, use the files under {@code db/once/<dialect>/} instead.
 */
public final class OutboxSchema {

    private OutboxSchema() {
    }

    /** Runs the dialect's schema file on {@code connection}, with {@code tableName} in place of once_outbox. */
    public static void create(Connection connection, String tableName) throws SQLException {
        OutboxSql.checkTableName(tableName);
        JdbcDialect dialect = JdbcDialect.detect(connection);
        String script = read(Outbox.schemaResource(dialect)).replace(Outbox.DEFAULT_TABLE, tableName);
        StringBuilder sql = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        try (Statement st = connection.createStatement()) {
            for (String statement : sql.toString().split(";")) {
                if (!statement.isBlank()) {
                    st.execute(statement);
                }
            }
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    private static String read(String resource) {
        try (InputStream in = OutboxSchema.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("schema resource " + resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
