package io.github.once;

/**
 * One sub-operation of a handler, run at most once per message key and step name by
 * {@link ExecutionContext#step(String, ResultCodec, Step)}.
 */
@FunctionalInterface
public interface Step<T> {
    T run() throws Exception;
}
