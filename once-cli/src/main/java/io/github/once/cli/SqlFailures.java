package io.github.once.cli;

import io.github.once.OnceException;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.JdbcDialect;

import java.sql.SQLException;

/**
 * Turns a failure to open a database connection into the CLI's exit statuses. What counts as unreachable is the
 * JDBC store's own rule ({@link JdbcDialect#translate}); only the missing driver, a usage mistake, is the CLI's.
 */
public final class SqlFailures {
    private SqlFailures() {
    }

    public static CliException connecting(String where, SQLException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (message.startsWith("No suitable driver")) {
            return CliException.usage("no JDBC driver for " + where + ": the CLI speaks PostgreSQL "
                    + "(jdbc:postgresql:), MariaDB (jdbc:mariadb:) and H2 (jdbc:h2:)");
        }
        OnceException sorted = JdbcDialect.translate("opening a connection", e);
        if (sorted instanceof StoreUnavailableException) {
            return CliException.unreachable("cannot reach " + where + " (" + firstLine(message) + ")", e);
        }
        return CliException.unreachable("cannot open " + where + ": " + firstLine(sorted.getMessage()), e);
    }

    public static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
