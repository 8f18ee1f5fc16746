/** The RabbitMQ adapter: the consumer and the publisher for users, the container hooks for listener containers. */
module io.github.once.rabbitmq {
    requires transitive io.github.once.core;
    requires transitive com.rabbitmq.client;
    requires transitive org.slf4j;
    requires static micrometer.observation;
    requires static micrometer.commons;
    requires com.fasterxml.jackson.core;

    exports io.github.once.rabbitmq;
    exports io.github.once.rabbitmq.container;
}
