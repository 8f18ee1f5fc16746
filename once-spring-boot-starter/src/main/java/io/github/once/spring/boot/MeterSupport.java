package io.github.once.spring.boot;

import io.github.once.micrometer.OnceMeters;
import io.github.once.spring.rabbit.OnceAdvice;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.function.IntSupplier;

/** once-micrometer's meters on the application's registry; loaded only when both are present. */
final class MeterSupport {
    /** The label of the executor shared by every listener, for store calls (which name no key). */
    static final String EXECUTOR_LABEL = "spring-rabbit";

    private MeterSupport() {
    }

    static void bind(OnceAdvice.Builder advice, MeterRegistry registry, String namespace) {
        OnceMeters meters = OnceMeters.of(registry);
        advice.executorListener(meters.executor(namespace != null ? namespace : EXECUTOR_LABEL));
        advice.consumerListeners((queue, inFlight) -> meters.consumer(queue, namespace != null ? namespace : queue)
                .inFlight(inFlight, IntSupplier::getAsInt));
    }
}
