/** Once for Spring AMQP: {@code @Once} on {@code @RabbitListener} methods, through an advice of the containers. */
module io.github.once.spring.rabbit {
    requires transitive io.github.once.rabbitmq;
    requires transitive spring.rabbit;
    requires transitive spring.amqp;
    requires transitive spring.beans;
    requires transitive spring.tx;
    requires spring.aop;
    requires spring.core;
    requires spring.context;
    requires spring.expression;
    requires spring.messaging;
    requires static spring.jdbc;
    requires static micrometer.observation;
    requires org.slf4j;

    exports io.github.once.spring.rabbit;
}
