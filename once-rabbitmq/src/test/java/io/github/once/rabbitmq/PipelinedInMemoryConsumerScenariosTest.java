package io.github.once.rabbitmq;

/** The scenarios with pipelined consumers over the in-memory store shared by the test's consumers. */
class PipelinedInMemoryConsumerScenariosTest extends PipelinedConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() {
        return new InMemoryVariant();
    }
}
