/** Spring Boot auto-configuration of Once: the store, the advice of the listener containers, health and meters. */
module io.github.once.spring.boot {
    requires transitive io.github.once.spring.rabbit;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires spring.context;
    requires spring.core;
    requires spring.beans;
    requires spring.aop;
    requires static io.github.once.jdbc;
    requires static spring.jdbc;
    requires static io.github.once.redis;
    requires static io.github.once.micrometer;
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static spring.boot.health;
    requires static spring.boot.actuator;
    requires org.slf4j;

    exports io.github.once.spring.boot;
}
