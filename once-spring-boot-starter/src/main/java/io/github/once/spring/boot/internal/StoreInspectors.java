package io.github.once.spring.boot.internal;

import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;

import org.springframework.util.ClassUtils;

/** The operators' view of the stores Once ships; none for a store of another kind (or one wrapped by the application). */
final class StoreInspectors {
    private static final ClassLoader LOADER = StoreInspectors.class.getClassLoader();

    private StoreInspectors() {
    }

    /** The store's inspector, or null. */
    static StoreInspector of(IdempotencyStore store) {
        if (store instanceof InMemoryIdempotencyStore memory) {
            return memory.inspector();
        }
        StoreInspector found = null;
        if (ClassUtils.isPresent("io.github.once.jdbc.JdbcIdempotencyStore", LOADER)) {
            found = JdbcStores.inspector(store);
        }
        if (found == null && ClassUtils.isPresent("io.github.once.redis.RedisIdempotencyStore", LOADER)) {
            found = RedisStores.inspector(store);
        }
        return found;
    }
}
