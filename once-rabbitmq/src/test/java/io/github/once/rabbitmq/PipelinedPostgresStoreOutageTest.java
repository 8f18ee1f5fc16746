package io.github.once.rabbitmq;

/** The outage suite with a pipelined consumer (group commit) over PostgreSQL in transactional mode. */
class PipelinedPostgresStoreOutageTest extends PostgresStoreOutageTest {

    @Override
    protected OnceConsumer.Builder mode(OnceConsumer.Builder builder) {
        return builder.pipelined(true);
    }
}
