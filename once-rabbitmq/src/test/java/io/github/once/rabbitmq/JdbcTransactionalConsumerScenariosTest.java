package io.github.once.rabbitmq;

/** The scenarios with PostgreSQL in transactional mode: effect rows and records commit together. */
class JdbcTransactionalConsumerScenariosTest extends ConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() throws Exception {
        return new JdbcTransactionalVariant();
    }
}
