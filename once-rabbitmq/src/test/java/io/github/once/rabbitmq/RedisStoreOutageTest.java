package io.github.once.rabbitmq;

/**
 * A private redis-server (no persistence) killed and restarted on the same port. Records written before the
 * crash are gone after it; each message is published once, so only a message caught between its effect and
 * its record could run twice: the separate-record window, which the arbitrary-moment test measures.
 */
class RedisStoreOutageTest extends StoreOutageContract {

    private PrivateRedis redis;
    private final UnrecordedCompletions unrecordedCompletions = new UnrecordedCompletions();

    @Override
    protected StoreVariant startStore() throws Exception {
        redis = new PrivateRedis();
        redis.start();
        return new RedisVariant(redis.uri(), unrecordedCompletions);
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
        return unrecordedCompletions.count();
    }

    @Override
    protected String allowanceSource() {
        return "(" + unrecordedCompletions + ")";
    }

    @Override
    protected void stopEverything() throws Exception {
        redis.close();
    }
}
