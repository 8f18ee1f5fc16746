package io.github.once.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A second process purging the same table as a test: {@code PurgerProcess url user table batchSize}. It prints
 * {@code ready}, waits for a line on standard input so both purgers start together, purges until a run deletes
 * nothing, and prints {@code purged N deadlocks D}.
 */
public final class PurgerProcess {

    private PurgerProcess() {
    }

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword("");
        config.setMaximumPoolSize(2);
        config.setPoolName("once-purger-process");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(args[2]).build();
            JdbcPurger purger = JdbcPurger.builder(store).batchSize(Integer.parseInt(args[3])).build();
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            int purged = 0;
            for (int deleted = purger.runOnce(); deleted > 0; deleted = purger.runOnce()) {
                purged += deleted;
            }
            System.out.println("purged " + purged + " deadlocks " + store.purgeDeadlocks());
            System.out.flush();
        }
    }
}
