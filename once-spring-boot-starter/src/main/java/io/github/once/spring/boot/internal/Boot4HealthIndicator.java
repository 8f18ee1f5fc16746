package io.github.once.spring.boot.internal;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** The store's health on Spring Boot 4 (spring-boot-health). */
public final class Boot4HealthIndicator implements HealthIndicator {
    private final OnceStoreHealth health;

    public Boot4HealthIndicator(OnceStoreHealth health) {
        this.health = health;
    }

    @Override
    public Health health() {
        OnceStoreHealth.Result r = health.check();
        return (r.up() ? Health.up() : Health.down()).withDetails(r.details()).build();
    }
}
