package io.github.once.rabbitmq;

import org.junit.jupiter.api.Test;

/** The outage suite with a pipelined consumer over a private Redis. */
class PipelinedRedisStoreOutageTest extends RedisStoreOutageTest {

    @Override
    protected OnceConsumer.Builder mode(OnceConsumer.Builder builder) {
        return builder.pipelined(true);
    }

    /** Staged while the consumer is quiet: see {@link #storeStoppedWhileQuietPausesAndResumesNothingLostNothingDoubled}. */
    @Test
    @Override
    void storeStoppedBetweenMessagesPausesAndResumesNothingLostNothingDoubled() throws Exception {
        storeStoppedWhileQuietPausesAndResumesNothingLostNothingDoubled();
    }
}
