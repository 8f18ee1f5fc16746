package io.github.once.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that opens a new connection from a JDBC URL each time. Enough for a command-line tool that
 * makes a handful of calls; applications use a pool.
 */
public final class UrlDataSource implements DataSource {
    private final String url;
    private volatile int loginTimeout = 5;

    public UrlDataSource(String url) {
        this.url = url;
    }

    @Override
    public Connection getConnection() throws SQLException {
        DriverManager.setLoginTimeout(loginTimeout);
        return DriverManager.getConnection(url);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        DriverManager.setLoginTimeout(loginTimeout);
        return DriverManager.getConnection(url, username, password);
    }

    /** The URL without its query string or credentials, for messages. */
    public static String redacted(String url) {
        String noQuery = url.replaceAll("[?;].*$", "");
        return noQuery.replaceAll("//[^/@]*@", "//");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
