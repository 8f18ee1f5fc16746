package io.github.once.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Small PostgreSQL and MariaDB pools that start even while the server is down and give up on a dead one quickly. */
final class Pools {

    private Pools() {
    }

    /** A pool for a PostgreSQL ({@code jdbc:postgresql:}) or MariaDB ({@code jdbc:mariadb:}) URL of the harness. */
    static HikariDataSource forUrl(String url, String name, int size) {
        return url.startsWith("jdbc:mariadb:") ? mariadb(url, name, size) : postgres(url, name, size);
    }

    static HikariDataSource postgres(String url, String name, int size) {
        HikariConfig config = config(url, "postgres", name, size);
        // A socket timeout so a stalled server fails a statement instead of hanging the handler forever.
        config.addDataSourceProperty("socketTimeout", "10"); // seconds
        config.addDataSourceProperty("connectTimeout", "3");
        return new HikariDataSource(config);
    }

    /** As the consumers' account of the private MariaDB, which a fault's {@code KILL CONNECTION} ends. */
    static HikariDataSource mariadb(String url, String name, int size) {
        HikariConfig config = config(url, PrivateMariaDb.USER, name, size);
        config.addDataSourceProperty("socketTimeout", "10000"); // milliseconds, unlike PostgreSQL's driver
        config.addDataSourceProperty("connectTimeout", "3000");
        return new HikariDataSource(config);
    }

    private static HikariConfig config(String url, String user, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2000);
        config.setValidationTimeout(1000);
        config.setInitializationFailTimeout(-1);
        config.setPoolName(name);
        return config;
    }
}
