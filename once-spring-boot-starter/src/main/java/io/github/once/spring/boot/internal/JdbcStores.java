package io.github.once.spring.boot.internal;

import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.github.once.spring.boot.OnceProperties;

import javax.sql.DataSource;

/** once-jdbc's store; a class of its own so applications without once-jdbc never load it. */
public final class JdbcStores {
    private JdbcStores() {
    }

    public static IdempotencyStore create(DataSource dataSource, OnceProperties.Jdbc jdbc) {
        return JdbcIdempotencyStore.builder(dataSource).tableName(jdbc.getTable())
                .createTableIfMissing(jdbc.isCreateTable()).build();
    }

    /** Its inspector when {@code store} is once-jdbc's, else null. */
    static StoreInspector inspector(IdempotencyStore store) {
        return store instanceof JdbcIdempotencyStore jdbc ? jdbc.inspector() : null;
    }
}
