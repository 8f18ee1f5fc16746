package io.github.once.bench.store;

import org.springframework.integration.metadata.ConcurrentMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.GenericMessage;

/**
 * Spring Integration's idempotent receiver: a {@link MetadataStoreSelector} that accepts a message when its key
 * was absent from the metadata store (one {@code putIfAbsent}, recorded before the work; nothing after it).
 */
final class SpringIntegrationRepository implements RepositoryUnderTest {

    private final MetadataStoreSelector selector;
    private final Runnable cleanup;

    SpringIntegrationRepository(ConcurrentMetadataStore store, Runnable cleanup) {
        this.selector = new MetadataStoreSelector(message -> (String) message.getPayload(), store);
        this.cleanup = cleanup;
    }

    @Override
    public boolean claimAndComplete(String key) {
        Message<String> message = new GenericMessage<>(key);
        return selector.accept(message);
    }

    @Override
    public void close() {
        cleanup.run();
    }
}
