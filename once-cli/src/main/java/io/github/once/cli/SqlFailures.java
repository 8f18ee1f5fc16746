package io.github.once.cli;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/** Sorts a failure to open a database connection into the CLI's exit statuses. */
public final class SqlFailures {
    private SqlFailures() {
    }

    public static CliException connecting(String where, SQLException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (message.startsWith("No suitable driver")) {
            return CliException.usage("no JDBC driver for " + where + ": the CLI speaks PostgreSQL "
                    + "(jdbc:postgresql:), MariaDB (jdbc:mariadb:) and H2 (jdbc:h2:)");
        }
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("28")) {
            return CliException.unreachable(where + " refused the credentials (" + firstLine(message) + ")", e);
        }
        if (state.startsWith("08") || state.equals("3D000") || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException) {
            return CliException.unreachable("cannot reach " + where + " (" + firstLine(message) + ")", e);
        }
        return CliException.unreachable("cannot open " + where + " (" + firstLine(message) + ")", e);
    }

    public static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
