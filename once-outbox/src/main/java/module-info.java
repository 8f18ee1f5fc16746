/** The transactional outbox: writes in the caller's transaction, the relay and the purger. */
module io.github.once.outbox {
    requires transitive io.github.once.jdbc;
    requires transitive io.github.once.rabbitmq;
    requires static micrometer.observation;
    requires static org.postgresql.jdbc;
    requires org.slf4j;

    exports io.github.once.outbox;
}
