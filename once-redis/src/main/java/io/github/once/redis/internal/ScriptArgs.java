package io.github.once.redis.internal;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/** The keys and arguments of the store's scripts, encoded as the scripts read them. */
public final class ScriptArgs {
    // Longer durations are clamped: Redis keeps milliseconds and the scripts do their arithmetic in doubles.
    private static final long MAX_MILLIS = Duration.ofDays(365L * 100).toMillis();
    private static final byte[] NO_FINGERPRINT = {'-'};
    private static final byte[] WITH_RESULT = {'1'};
    private static final byte[] WITHOUT_RESULT = {'0'};
    private static final byte[] EMPTY = {};

    private ScriptArgs() {
    }

    /** The arguments of the claim script: fingerprint, lease and retention. */
    public static byte[][] claim(ClaimRequest request) {
        String fingerprint = request.fingerprint();
        return new byte[][] {
                fingerprint == null ? NO_FINGERPRINT : ("+" + fingerprint).getBytes(StandardCharsets.UTF_8),
                millis(request.leaseDuration()),
                millis(request.retention())};
    }

    public static byte[] token(Lease lease) {
        return ascii(lease.token());
    }

    /** Milliseconds as ASCII, at least 1 and clamped to a century. */
    public static byte[] millis(Duration duration) {
        long millis;
        try {
            millis = duration.toMillis();
        } catch (ArithmeticException tooLong) {
            millis = MAX_MILLIS;
        }
        return ascii(Math.min(MAX_MILLIS, Math.max(1, millis)));
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** The arguments of the complete script: token, retention and the result, if any. */
    public static byte[][] complete(Lease lease, byte[] result, Duration retention) {
        return new byte[][] {token(lease), millis(retention), result == null ? WITHOUT_RESULT : WITH_RESULT,
                result == null ? EMPTY : result};
    }

    /** The keys and the arguments of one script call per key, in the order of the batch. */
    public record Calls(byte[][] keyNames, byte[][][] args) {
        private static final byte[][] NO_ARGS = new byte[0][];

        /** One call per item, in order: its key's Redis key and its arguments. */
        public static <T> Calls of(KeyLayout keys, List<T> items, Function<T, IdempotencyKey> key,
                                   Function<T, byte[][]> args) {
            int n = items.size();
            Calls calls = new Calls(new byte[n][], new byte[n][][]);
            for (int i = 0; i < n; i++) {
                T item = items.get(i);
                calls.keyNames[i] = keys.key(Objects.requireNonNull(key.apply(item), "key"));
                calls.args[i] = args.apply(item);
            }
            return calls;
        }

        public static Calls claims(KeyLayout keys, List<ClaimRequest> requests) {
            return of(keys, requests, ClaimRequest::key, ScriptArgs::claim);
        }

        public static Calls finds(KeyLayout keys, List<IdempotencyKey> keysToFind) {
            return of(keys, keysToFind, key -> key, key -> NO_ARGS);
        }

        public static Calls completions(KeyLayout keys, List<Completion> completions) {
            return of(keys, completions, completion -> completion.lease().key(),
                    completion -> complete(completion.lease(), completion.result(), completion.retention()));
        }
    }
}
