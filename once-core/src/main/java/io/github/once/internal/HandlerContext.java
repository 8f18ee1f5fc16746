package io.github.once.internal;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyKey;
import io.github.once.ResultCodec;
import io.github.once.spi.Lease;

import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** What a handler sees: its lease as renewed so far, and the resources of the unit it runs in. */
public final class HandlerContext implements ExecutionContext {

    private final Lease lease;
    private final BooleanSupplier leaseHeld;
    private final Function<Class<?>, Object> resources;
    private final StepRunner steps;

    /** @param resources the resource of a type, or null when there is none */
    public HandlerContext(Lease lease, BooleanSupplier leaseHeld, Function<Class<?>, Object> resources) {
        this(lease, leaseHeld, resources, null);
    }

    /** @param steps runs this handler's steps, or null when it runs none */
    public HandlerContext(Lease lease, BooleanSupplier leaseHeld, Function<Class<?>, Object> resources,
                          StepRunner steps) {
        this.lease = lease;
        this.leaseHeld = leaseHeld;
        this.resources = resources;
        this.steps = steps;
    }

    @Override
    public IdempotencyKey key() {
        return lease.key();
    }

    @Override
    public long fencingToken() {
        return lease.token();
    }

    @Override
    public boolean leaseHeld() {
        return leaseHeld.getAsBoolean();
    }

    @Override
    public <R> R resource(Class<R> type) {
        Object resource = resources.apply(type);
        if (resource == null) {
            throw new IllegalStateException("this execution provides no " + type.getName()
                    + "; a transactional scope (once-jdbc) provides a java.sql.Connection");
        }
        return type.cast(resource);
    }

    @Override
    public <T> T step(String name, ResultCodec<T> codec, Callable<T> step) throws Exception {
        if (steps == null) {
            return ExecutionContext.super.step(name, codec, step);
        }
        return steps.run(lease.key(), name, codec, step);
    }
}
