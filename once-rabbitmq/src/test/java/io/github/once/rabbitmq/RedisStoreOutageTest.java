package io.github.once.rabbitmq;

/**
 * A private redis-server (no persistence) killed and restarted on the same port. Records written before the
 * crash are gone after it; each message is published once, so only a message caught between its effect and
 * its record could run twice: the separate-record window, which the arbitrary-moment test measures.
 */
class RedisStoreOutageTest extends StoreOutageContract {

    private PrivateRedis redis;
    private final FailedCompletions failedCompletions = new FailedCompletions();

    @Override
    protected StoreVariant startStore() throws Exception {
        redis = new PrivateRedis();
        redis.start();
        return new RedisVariant(redis.uri(), failedCompletions);
    }

    @Override
    protected void stopStore() throws Exception {
        redis.kill();
    }

    @Override
    protected void restartStore() throws Exception {
        redis.start();
    }

    @Override
    protected long repeatsAllowed() {
        return failedCompletions.count();
    }

    @Override
    protected void stopEverything() throws Exception {
        redis.close();
    }
}
