package io.github.once.redis.internal;

import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Loads the store's scripts into Redis: as the start-up check, and ahead of the first calls. */
public final class ScriptLoading {
    private static final Logger log = LoggerFactory.getLogger(ScriptLoading.class);

    private ScriptLoading() {
    }

    /**
     * Checks that Redis answers and that every script loads ({@code SCRIPT LOAD}): unavailable when Redis does not
     * answer in time, misconfigured when it refuses (credentials, ACL permissions, scripting disabled).
     */
    public static void verify(RedisConnections connections, String keyPrefix, Duration timeout) {
        for (LuaScript script : LuaScript.ALL) {
            try {
                connections.commands().scriptLoad(script.body()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreUnavailableException("interrupted while checking " + connections, e);
            } catch (ExecutionException e) {
                throw refused(connections, keyPrefix, script, e.getCause() == null ? e : e.getCause());
            } catch (TimeoutException e) {
                throw new StoreUnavailableException(connections + " did not answer within " + timeout
                        + ": check that Redis runs there and that uri(...) names it", e);
            } catch (RuntimeException e) {
                throw refused(connections, keyPrefix, script, e);
            }
        }
    }

    private static RuntimeException refused(RedisConnections connections, String keyPrefix, LuaScript script,
                                            Throwable cause) {
        String text = String.valueOf(cause.getMessage());
        if (cause instanceof RedisCommandExecutionException) {
            String fix = text.startsWith("NOPERM") ? "grant the Redis user +script|load, +evalsha and +eval on the"
                    + " key prefix '" + keyPrefix + "' (ACL SETUSER)"
                    : text.startsWith("NOAUTH") || text.startsWith("WRONGPASS") ? "check the credentials in uri(...)"
                    + " or credentials(...)" : "check that this Redis allows Lua scripts";
            return new StoreMisconfiguredException(connections + " refused to load the " + script + " (" + text
                    + "): " + fix, cause);
        }
        return new StoreUnavailableException(connections + " cannot be reached (" + cause
                + "): check that Redis runs there and that uri(...) names it", cause);
    }

    /** Loads the scripts ahead of the first call, so the first calls need no NOSCRIPT retry. Best effort. */
    public static void preload(RedisConnections connections, Duration timeout) {
        if (!connections.isOpen()) {
            return; // Redis was down at build: the first call connects, and EVALSHA falls back to EVAL
        }
        for (LuaScript script : LuaScript.ALL) {
            try {
                connections.commands().scriptLoad(script.body()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // EVALSHA falls back to EVAL, which caches the script where it runs.
                log.debug("Could not preload {} into Redis; it loads on first use", script, e);
                return;
            }
        }
    }
}
