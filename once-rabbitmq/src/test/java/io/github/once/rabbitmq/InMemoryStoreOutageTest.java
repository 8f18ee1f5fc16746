package io.github.once.rabbitmq;

/**
 * The in-memory store cut off and restored: every call fails meanwhile, as an unreachable store's does, and the
 * records survive (unlike a Redis restart without persistence). Only a handler whose completion failed may run
 * again.
 */
class InMemoryStoreOutageTest extends StoreOutageContract {

    private final FailedCompletions failedCompletions = new FailedCompletions();
    private SeparateThreadVariant store;

    @Override
    protected StoreVariant startStore() {
        store = new SeparateThreadVariant(failedCompletions);
        return store;
    }

    @Override
    protected void stopStore() {
        store.store.cut();
    }

    @Override
    protected void restartStore() {
        store.store.restore();
    }

    @Override
    protected long repeatsAllowed() {
        return failedCompletions.count();
    }

    @Override
    protected void stopEverything() {
        store.close();
    }
}
