package io.github.once.spring.boot;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The store outage scenarios on Boot's default {@code SimpleMessageListenerContainer}. */
class StoreOutageTest extends ListenerStoreOutageContract {

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        register(r, "outage");
    }
}
