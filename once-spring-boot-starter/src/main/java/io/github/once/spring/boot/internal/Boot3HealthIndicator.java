package io.github.once.spring.boot.internal;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** The store's health on Spring Boot 3.5 (spring-boot-actuator). */
public final class Boot3HealthIndicator implements HealthIndicator {
    private final OnceStoreHealth health;

    public Boot3HealthIndicator(OnceStoreHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        OnceStoreHealth.Result r = health.check();
        return (r.up() ? Health.up() : Health.down()).withDetails(r.details()).build();
    }
}
