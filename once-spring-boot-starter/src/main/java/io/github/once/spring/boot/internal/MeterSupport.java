package io.github.once.spring.boot.internal;

import io.github.once.micrometer.OnceMeters;
import io.github.once.spring.rabbit.OnceAdvice;
import io.micrometer.core.instrument.MeterRegistry;

/** once-micrometer's meters on the application's registry; loaded only when both are present. */
public final class MeterSupport {
    /** The label of the executor shared by every listener, for store calls (which name no key). */
    static final String EXECUTOR_LABEL = "spring-rabbit";

    private MeterSupport() {
    }

    public static void bind(OnceAdvice.Builder advice, MeterRegistry registry, String namespace) {
        OnceMeters meters = OnceMeters.builder(registry).build();
        advice.executorListener(meters.executor(namespace != null ? namespace : EXECUTOR_LABEL));
        advice.consumerListeners((queue, inFlight) -> {
            String ns = namespace != null ? namespace : queue;
            meters.inFlight(queue, ns, inFlight);
            return meters.consumer(queue, ns);
        });
    }
}
