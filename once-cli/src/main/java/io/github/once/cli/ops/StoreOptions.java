package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.cli.CliException;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** Which store an operating command works on: exactly one of a Redis URI or a JDBC URL. */
public final class StoreOptions {

    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
        @Option(names = "--redis-uri", paramLabel = "URI", required = true,
                description = "The Redis that holds the records, e.g. redis://127.0.0.1:6379")
        String redisUri;

        @Option(names = "--jdbc-url", paramLabel = "URL", required = true,
                description = "The database that holds the records, e.g. "
                        + "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
        String jdbcUrl;
    }

    @Option(names = "--table", paramLabel = "NAME", defaultValue = JdbcIdempotencyStore.DEFAULT_TABLE,
            description = "The records table (JDBC; default ${DEFAULT-VALUE}).")
    String table;

    @Option(names = "--key-prefix", paramLabel = "PREFIX", defaultValue = RedisIdempotencyStore.DEFAULT_KEY_PREFIX,
            description = "The records' key prefix (Redis; default ${DEFAULT-VALUE}).")
    String keyPrefix;

    @Option(names = "--verbose", description = "Stack traces on failure.")
    boolean verbose;

    /** Opens the chosen store, failing with a one-line message and a distinct exit status. */
    OpsStore open() {
        if (target.redisUri != null) {
            requireUri("--redis-uri", target.redisUri, "redis", "rediss");
            return OpsStore.redis(target.redisUri, keyPrefix);
        }
        String lower = target.jdbcUrl.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("jdbc:")) {
            throw CliException.usage("--jdbc-url must start with jdbc:, but was '" + target.jdbcUrl + "'");
        }
        if (!TABLE.matcher(table).matches()) {
            throw CliException.usage("--table must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63), "
                    + "but was '" + table + "'");
        }
        return OpsStore.jdbc(target.jdbcUrl, table);
    }

    /** Fails as a usage error unless {@code namespace} is null or a valid namespace. */
    static void requireNamespace(String namespace) {
        if (namespace == null) {
            return;
        }
        try {
            IdempotencyKey.of(namespace, "x");
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
    }

    static void requireUri(String option, String value, String... schemes) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw CliException.usage(option + " is not a valid URI: '" + value + "' (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        for (String s : schemes) {
            if (s.equals(scheme)) {
                if (uri.getHost() == null || uri.getHost().isBlank()) {
                    throw CliException.usage(option + " needs a host, but was '" + value + "'");
                }
                return;
            }
        }
        throw CliException.usage(option + " must start with " + String.join(":// or ", schemes) + "://, but was '"
                + value + "'");
    }
}
