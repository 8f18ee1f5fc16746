package io.github.once.rabbitmq;

/** The scenarios with the in-memory store shared by the test's consumers. */
class InMemoryConsumerScenariosTest extends ConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() {
        return new InMemoryVariant();
    }
}
