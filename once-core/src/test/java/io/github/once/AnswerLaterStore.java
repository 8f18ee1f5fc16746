package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A store over another whose asynchronous calls answer on a thread of their own, as a networked store's do: at
 * once, or, while held, only when the test lets them ({@link #answerAll()}), so a test can tell what goes out while
 * a call is in flight. It keeps the size of every claim and completion call, and can be cut off (every call then
 * fails with {@link StoreUnavailableException}, as an unreachable store's does).
 */
final class AnswerLaterStore implements IdempotencyStore, AutoCloseable {

    private final IdempotencyStore inner;
    private final ExecutorService answerer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "store-answers");
        t.setDaemon(true);
        return t;
    });
    private record Held(boolean claims, Runnable answer) {
    }

    private final ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();
    final List<Integer> claimCalls = new CopyOnWriteArrayList<>();
    final List<Integer> completionCalls = new CopyOnWriteArrayList<>();
    private volatile boolean holding;
    private volatile boolean down;

    AnswerLaterStore(IdempotencyStore inner) {
        this.inner = inner;
    }

    /** From now on answers wait for {@link #answerAll()}. */
    void hold() {
        holding = true;
    }

    /** Answers every call waiting, on the answering thread. */
    void answerAll() {
        answer(h -> true);
    }

    /** Answers the claim calls waiting; completions keep waiting. */
    void answerClaims() {
        answer(Held::claims);
    }

    /** Answers the completion calls waiting; claims keep waiting. */
    void answerCompletions() {
        answer(h -> !h.claims());
    }

    private void answer(Predicate<Held> which) {
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (which.test(h)) {
                it.remove();
                answerer.execute(h.answer());
            }
        }
    }

    /** Calls waiting for an answer. */
    int waiting() {
        return held.size();
    }

    void cut() {
        down = true;
    }

    void restore() {
        down = false;
    }

    private <R> R call(Supplier<R> call) {
        if (down) {
            throw new StoreUnavailableException("cut off by the test");
        }
        return call.get();
    }

    private <R> CompletionStage<R> later(boolean claims, Supplier<R> call) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        Runnable run = () -> {
            try {
                answer.complete(call(call));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        };
        if (holding) {
            held.add(new Held(claims, run));
        } else {
            answerer.execute(run);
        }
        return answer;
    }

    @Override
    public CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        claimCalls.add(requests.size());
        return later(true, () -> inner.claimAll(requests));
    }

    @Override
    public CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        completionCalls.add(completions.size());
        return later(false, () -> inner.completeAll(completions));
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return call(() -> inner.claim(request));
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        return call(() -> inner.complete(lease, result, retention));
    }

    @Override
    public boolean release(Lease lease) {
        return call(() -> inner.release(lease));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return call(() -> inner.renew(lease, leaseDuration));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return inner.find(key);
    }

    @Override
    public void close() {
        answerer.shutdownNow();
    }
}
