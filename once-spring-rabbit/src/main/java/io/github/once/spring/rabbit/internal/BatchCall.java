package io.github.once.spring.rabbit.internal;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;

/**
 * One call of a batch listener under Once, with the messages whose keys were acquired: the listener is called
 * once, with those messages, by the first task of the batch that runs.
 */
public final class BatchCall {
    private final MethodInvocation invocation;
    private final List<Message> messages = new ArrayList<>();
    private final List<IdempotencyKey> keys = new ArrayList<>();
    private List<Integer> acquired;
    private boolean called;
    private Exception failure;

    public BatchCall(MethodInvocation invocation) {
        this.invocation = invocation;
    }

    public void add(Message message, IdempotencyKey key) {
        messages.add(message);
        keys.add(key);
    }

    /**
     * The batch claim's answers: the first message of each acquired key goes to the listener. Only the first
     * claim call counts: a key repeated in the batch is claimed again later, after the listener ran.
     */
    public void claimed(List<ClaimRequest> requests, List<ClaimResult> results) {
        if (acquired != null) {
            return;
        }
        Set<IdempotencyKey> won = new HashSet<>();
        for (int i = 0; i < requests.size(); i++) {
            if (results.get(i) instanceof ClaimResult.Acquired) {
                won.add(requests.get(i).key());
            }
        }
        List<Integer> indexes = new ArrayList<>();
        Set<IdempotencyKey> seen = new HashSet<>();
        for (int i = 0; i < keys.size(); i++) {
            if (seen.add(keys.get(i)) && won.contains(keys.get(i))) {
                indexes.add(i);
            }
        }
        acquired = indexes;
    }

    /** The handler of task {@code index}: the first one to run calls the listener for all. */
    public byte[] runFor(int index) throws Exception {
        if (!called) {
            called = true;
            // One keyed message is claimed alone, without a batch claim.
            failure = invokeWith(acquired != null ? acquired : List.of(index));
        }
        if (failure != null) {
            throw failure;
        }
        return null;
    }

    public Exception invokeWith(List<Integer> indexes) {
        List<Message> chosen = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            chosen.add(messages.get(i));
        }
        invocation.getArguments()[1] = chosen;
        try {
            proceed(invocation);
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    /** Runs the listener; its exception, unwrapped from Spring's, is the handler's failure. */
    public static void proceed(MethodInvocation invocation) throws Exception {
        try {
            invocation.proceed();
        } catch (ListenerExecutionFailedException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            while (cause instanceof org.springframework.messaging.MessagingException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            throw cause instanceof Exception ex ? ex : e;
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
