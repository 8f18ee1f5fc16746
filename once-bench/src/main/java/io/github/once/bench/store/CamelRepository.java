package io.github.once.bench.store;

import org.apache.camel.spi.IdempotentRepository;

/**
 * A Camel {@link IdempotentRepository} used as Camel's idempotent consumer uses it in its default eager mode:
 * {@code add} before the work, {@code confirm} after it.
 */
final class CamelRepository implements RepositoryUnderTest {

    private final IdempotentRepository repository;
    private final Runnable cleanup;

    CamelRepository(IdempotentRepository repository, Runnable cleanup) {
        this.repository = repository;
        this.cleanup = cleanup;
        repository.start();
    }

    @Override
    public boolean claimAndComplete(String key) {
        if (!repository.add(key)) {
            return false;
        }
        repository.confirm(key);
        return true;
    }

    @Override
    public void close() {
        try {
            cleanup.run();
        } finally {
            repository.stop();
        }
    }
}
