package io.github.once.spring.boot.internal;

import io.github.once.micrometer.OnceMeters;
import io.github.once.spring.rabbit.OnceAdvice;
import io.micrometer.core.instrument.MeterRegistry;

/** once-micrometer's meters on the application's registry; loaded only when both are present. */
public final class MeterSupport {
    private MeterSupport() {
    }

    public static void bind(OnceAdvice.Builder advice, MeterRegistry registry, String namespace) {
        OnceMeters meters = OnceMeters.builder(registry).build();
        advice.executorListeners(meters::executor); // each queue's executor, with the queue's namespace
        advice.consumerListeners((queue, inFlight) -> {
            String ns = namespace != null ? namespace : queue;
            meters.inFlight(queue, ns, inFlight);
            return meters.consumer(queue, ns);
        });
    }
}
