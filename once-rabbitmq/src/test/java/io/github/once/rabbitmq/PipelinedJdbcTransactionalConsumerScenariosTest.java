package io.github.once.rabbitmq;

/**
 * The scenarios with pipelined consumers over PostgreSQL in transactional mode (group commit): effect rows and
 * records commit together, a group's commit overlapping the next group's handlers.
 */
class PipelinedJdbcTransactionalConsumerScenariosTest extends PipelinedConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() throws Exception {
        return new JdbcTransactionalVariant();
    }
}
