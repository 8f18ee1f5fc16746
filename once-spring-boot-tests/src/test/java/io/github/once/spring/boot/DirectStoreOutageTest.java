package io.github.once.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/** The store outage scenarios on {@code DirectMessageListenerContainer}s, which the advice stops and starts too. */
@TestPropertySource(properties = "spring.rabbitmq.listener.type=direct")
class DirectStoreOutageTest extends ListenerStoreOutageContract {

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        register(r, "direct-outage");
    }
}
