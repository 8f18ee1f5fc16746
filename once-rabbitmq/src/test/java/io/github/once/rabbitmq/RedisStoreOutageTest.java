package io.github.once.rabbitmq;

import io.github.once.OnceListener;
import io.github.once.StoreOperation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A private redis-server (no persistence) killed and restarted on the same port. Records written before the
 * crash are gone after it; each message is published once, so only a message caught between its effect and
 * its record could run twice: the separate-record window, which the arbitrary-moment test measures.
 */
class RedisStoreOutageTest extends StoreOutageContract {

    private PrivateRedis redis;
    private final AtomicLong failedCompletions = new AtomicLong();

    @Override
    protected StoreVariant startStore() throws Exception {
        redis = new PrivateRedis();
        redis.start();
        return new RedisVariant(redis.uri(), new OnceListener() {
            @Override
            public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                if (operation == StoreOperation.COMPLETE && failure != null) {
                    failedCompletions.incrementAndGet();
                }
            }
        });
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
        // A handler whose completion could not be recorded ran its effect; its redelivery runs it again.
        return failedCompletions.get();
    }

    @Override
    protected void stopEverything() throws Exception {
        redis.close();
    }
}
