package io.github.once;

/** The work to do once per key. */
@FunctionalInterface
public interface Handler<T> {
    T handle(ExecutionContext context) throws Exception;
}
