package io.github.once.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Small PostgreSQL pools that start even while the server is down and give up on a dead one quickly. */
final class Pools {

    private Pools() {
    }

    static HikariDataSource postgres(String url, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2000);
        config.setValidationTimeout(1000);
        config.setInitializationFailTimeout(-1);
        config.setPoolName(name);
        // A socket timeout so a stalled server fails a statement instead of hanging the handler forever.
        config.addDataSourceProperty("socketTimeout", "10");
        config.addDataSourceProperty("connectTimeout", "3");
        return new HikariDataSource(config);
    }
}
