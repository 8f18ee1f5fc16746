package io.github.once.rabbitmq;

/**
 * The in-memory store cut off and restored: every call fails meanwhile, as an unreachable store's does, and the
 * records survive (unlike a Redis restart without persistence). Only a handler whose completion failed may run
 * again.
 */
class InMemoryStoreOutageTest extends StoreOutageContract {

    private final UnrecordedCompletions unrecordedCompletions = new UnrecordedCompletions();
    private CuttableVariant store;

    @Override
    protected StoreVariant startStore() {
        store = new CuttableVariant(unrecordedCompletions);
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
        return unrecordedCompletions.count();
    }

    @Override
    protected String allowanceSource() {
        return "(" + unrecordedCompletions + ")";
    }

    @Override
    protected void stopEverything() {
    }
}
