package io.github.once;

import java.util.concurrent.CompletionStage;

/**
 * Runs tasks in stages, so that store round trips overlap with handler work: tasks submitted while a claim call
 * is in flight go out together in the next one, handlers run as soon as their claim answers, and the completions
 * of the handlers that finished while a completion call was in flight go out together in the next one. Made by
 * {@link Idempotency#pipeline(int, Runnable)}; each task's outcome is what {@link Idempotency#execute(Task)} would
 * answer for it (the same code decides), and the listener hears the same events. In a scope whose units commit (a
 * database transaction) the pipeline is group commit instead: the waiting tasks run as a batch in one unit, which
 * commits on another thread while the next group runs; see {@link Idempotency#pipeline(int, Runnable)}.
 *
 * <p><b>One driving thread.</b> A pipeline is not thread-safe: one thread submits, calls {@link #step()} and
 * {@link #abandon}; handlers run on that thread, one at a time, and the listener hears every event but lease
 * renewals there. The stores answer on their own threads, which only queue the answer and call the wake-up given
 * at creation, so the driving thread can wait for work and never miss an answer.
 *
 * <p>A store that answers its asynchronous calls on the caller's thread (the SPI's default) overlaps nothing; the
 * pipeline then saves round trips instead: once such a completion call has answered inline, the completions of
 * finished handlers wait while another handler is ready to run, and go together.
 *
 * <p><b>Order.</b> Handlers run in the order the tasks were submitted: a task whose claim has not answered yet
 * holds back the handlers of the tasks after it. A task whose key repeats one still in the pipeline is claimed
 * only once that earlier task has its outcome, so it sees the earlier completion (a repeat of processed work is a
 * {@code Duplicate}, never a second run).
 */
public interface TaskPipeline<T> {

    /**
     * Adds a task. Its stage completes on the driving thread, during a later {@link #step()} or
     * {@link #abandon}: with the task's outcome, or exceptionally with what kept the store from answering for it
     * ({@link StoreUnavailableException} and the like, or the cause given to {@link #abandon}); the task's
     * handler then did not run, or ran and its completion could not be recorded. Callbacks on the stage should
     * only note the result: they run inside the pipeline's step.
     */
    CompletionStage<Outcome<T>> submit(Task<T> task);

    /**
     * Moves the pipeline on without waiting: takes the answers that came in, sends the next claim and completion
     * calls if none of their kind is in flight, and runs the handlers ready in line, taking answers and sending
     * calls after each, until one call's worth ran or a task got its outcome (so the caller can act on it, an ack
     * say, before more handlers run).
     *
     * @return whether anything happened; when not, the driving thread may wait for the wake-up
     */
    boolean step();

    /** Tasks submitted that have no outcome yet. */
    int size();

    /**
     * Ends every task whose handler has not started with {@code cause} (the store went away, or the caller is
     * stopping): keys already claimed for them are given back, and a claim still in flight is given back when it
     * answers. Tasks whose handler ran keep going, so their completions are still recorded if the store answers.
     */
    void abandon(RuntimeException cause);
}
