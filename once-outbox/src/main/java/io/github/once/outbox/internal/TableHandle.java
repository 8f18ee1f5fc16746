package io.github.once.outbox.internal;

import io.github.once.jdbc.JdbcDialect;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * The outbox table of a relay or purger, its dialect detected from the first connection when not given: building
 * either needs no database, so an application can start while its database is still coming up.
 */
public final class TableHandle {
    private final DataSource dataSource;
    private final JdbcDialect fixedDialect;
    private final String tableName;
    private volatile OutboxTable table;

    public TableHandle(DataSource dataSource, JdbcDialect fixedDialect, String tableName) {
        this.dataSource = dataSource;
        this.fixedDialect = fixedDialect;
        this.tableName = tableName;
    }

    public OutboxTable get() {
        OutboxTable t = table;
        if (t == null) {
            synchronized (this) {
                if (table == null) {
                    table = new OutboxTable(dataSource, new OutboxSql(dialect(), tableName));
                }
                t = table;
            }
        }
        return t;
    }

    private JdbcDialect dialect() {
        if (fixedDialect != null) {
            return fixedDialect;
        }
        try (Connection c = dataSource.getConnection()) {
            return JdbcDialect.detect(c);
        } catch (SQLException e) {
            throw JdbcDialect.translate("outbox dialect detection", e);
        }
    }
}
