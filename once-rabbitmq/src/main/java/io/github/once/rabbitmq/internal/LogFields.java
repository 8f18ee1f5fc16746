package io.github.once.rabbitmq.internal;

import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.StoreRejectedException;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.DeadLetterReason;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The values of the processing log's key-value pairs, as text: names of outcomes and actions, times, digests. */
public final class LogFields {
    private LogFields() {
    }

    public static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16); // 128 bits tell keys apart in a log
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    public static String reason(DeliveryTrail.DeadLetter deadLetter, IdempotencyKey key, Outcome<?> outcome) {
        if (deadLetter != null) {
            return deadLetter.reason().code();
        }
        // Until the consumer reports dead letters itself, the reason follows from what was heard.
        if (key == null) {
            return DeadLetterReason.MISSING_KEY.code();
        } else if (outcome instanceof Outcome.Conflict) {
            return DeadLetterReason.CONFLICT.code();
        } else if (outcome instanceof Outcome.CrashLoop) {
            return DeadLetterReason.CRASH_LOOP.code();
        } else if (outcome instanceof Outcome.Failed<?> failed && failed.cause() instanceof StoreRejectedException) {
            return DeadLetterReason.STORE_REJECTED.code();
        } else if (outcome instanceof Outcome.Failed) {
            return DeadLetterReason.MAX_ATTEMPTS.code();
        }
        return null;
    }

    public static long token(Outcome<?> outcome) {
        if (outcome instanceof Outcome.Processed<?> processed) {
            return processed.token();
        } else if (outcome instanceof Outcome.LeaseLost<?> lost) {
            return lost.lostLease().token();
        }
        return 0;
    }

    public static String outcomeName(Outcome<?> outcome) {
        // Java 17 has no pattern switch: the chain covers every permitted Outcome.
        if (outcome instanceof Outcome.Processed) {
            return "processed";
        } else if (outcome instanceof Outcome.Duplicate) {
            return "duplicate";
        } else if (outcome instanceof Outcome.Busy) {
            return "busy";
        } else if (outcome instanceof Outcome.Conflict) {
            return "conflict";
        } else if (outcome instanceof Outcome.Failed) {
            return "failed";
        } else if (outcome instanceof Outcome.CrashLoop) {
            return "crash-loop";
        }
        return "lease-lost";
    }

    public static String code(ConsumerAction action) {
        return action.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** {@code conflict 80, missing-key 2}: counts by name, largest first. */
    public static String counts(Map<String, Long> byName) {
        return byName.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
