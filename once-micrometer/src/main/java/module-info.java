/** Micrometer meters for the executor and the consumer. */
module io.github.once.micrometer {
    requires transitive io.github.once.rabbitmq;
    requires transitive micrometer.core;

    exports io.github.once.micrometer;
}
