package io.github.once.examples.springorders;

import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The order service: Boot builds RabbitMQ, the DataSource and Once from {@code application.properties}. */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    /** Orders travel as JSON; Boot gives this converter to the listener containers and the RabbitTemplate. */
    @Bean
    MessageConverter jsonMessages() {
        return new JacksonJsonMessageConverter();
    }
}
