package io.github.once;

import io.github.once.internal.CallObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.function.Supplier;

/**
 * The executor's {@code once.claim} and {@code once.complete} observations, children of the one open on the thread;
 * its registry, store kind and mode also tag each delivery's {@code once.process}.
 */
final class StoreCallObservations implements CallObserver {
    final ObservationRegistry registry;
    final String store;
    final String mode;

    StoreCallObservations(ObservationRegistry registry, String store, String mode) {
        this.registry = registry;
        this.store = store;
        this.mode = mode;
    }

    @Override
    public <R> R observe(OnceListener.StoreOperation operation, String namespace, int keys, Supplier<R> call) {
        OnceObservation which = switch (operation) {
            case CLAIM -> OnceObservation.CLAIM;
            case COMPLETE -> OnceObservation.COMPLETE;
            default -> null;
        };
        if (which == null) {
            return call.get();
        }
        Observation.Context context = new Observation.Context();
        context.put(OnceObservation.Key.NAMESPACE, namespace);
        context.put(OnceObservation.Key.STORE, store);
        context.put(OnceObservation.Key.MODE, mode);
        context.put(OnceObservation.Key.BATCH_SIZE, keys);
        Observation observation = OnceObservation.observation(which, context, registry).start();
        try {
            R result = call.get();
            context.put(OnceObservation.Key.OUTCOME, "success");
            return result;
        } catch (RuntimeException | Error e) {
            context.put(OnceObservation.Key.OUTCOME, "failure");
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }
}
