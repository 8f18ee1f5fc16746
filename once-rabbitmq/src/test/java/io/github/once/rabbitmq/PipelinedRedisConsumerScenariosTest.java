package io.github.once.rabbitmq;

/** The scenarios with pipelined consumers over the shared Redis on 127.0.0.1:6379 (a fresh key prefix per test). */
class PipelinedRedisConsumerScenariosTest extends PipelinedConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() {
        return new RedisVariant("redis://127.0.0.1:6379");
    }
}
