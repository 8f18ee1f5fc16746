package io.github.once.spring.rabbit;

import io.github.once.ExecutionContext;

/**
 * The execution a {@link Once} listener method runs in, for what a handler of the plain executor gets as its
 * context: steps with their own keys ({@link ExecutionContext#step}), a stable key for an external API
 * ({@link ExecutionContext#operationKey}), the fencing token and, in transactional mode, the connection.
 *
 * <pre>{@code
 * @RabbitListener(queues = "orders")
 * @Once
 * public void handle(Order order) throws Exception {
 *     ExecutionContext once = OnceContext.current();
 *     once.step("deduct-stock:" + order.sku(), () -> stock.deduct(order));
 *     payments.charge(order, once.operationKey("payment")); // the same Idempotency-Key on every attempt
 * }
 * }</pre>
 *
 * <p>It is bound to the listener's thread while a listener that takes one message at a time runs under Once, and
 * nowhere else: a batch listener (a {@code List} of messages in one call) has no single message's context.
 */
public final class OnceContext {

    private static final ThreadLocal<ExecutionContext> CURRENT = new ThreadLocal<>();

    private OnceContext() {
    }

    /**
     * The context of the message this thread's {@code @Once} listener is handling.
     *
     * @throws IllegalStateException when called anywhere else (another thread, a batch listener, no {@code @Once})
     */
    public static ExecutionContext current() {
        ExecutionContext context = CURRENT.get();
        if (context == null) {
            throw new IllegalStateException("no Once execution on this thread: OnceContext.current() answers only"
                    + " inside a @Once listener method that takes one message at a time, on the listener's thread");
        }
        return context;
    }

    /** Something the advice runs with a context bound. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** Runs {@code call} with {@code context} bound to this thread, restoring what was bound before. */
    static void runWith(ExecutionContext context, Call call) throws Exception {
        ExecutionContext previous = CURRENT.get();
        CURRENT.set(context);
        try {
            call.run();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }
}
