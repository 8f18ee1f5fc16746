package io.github.once.rabbitmq;

/** The scenarios with the shared Redis on 127.0.0.1:6379 (a fresh key prefix per test). */
class RedisConsumerScenariosTest extends ConsumerScenariosContract {
    @Override
    protected StoreVariant createVariant() {
        return new RedisVariant("redis://127.0.0.1:6379");
    }
}
