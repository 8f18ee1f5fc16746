package io.github.once.cli.demo;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import picocli.CommandLine;

/** The demo's checked targets: a real broker, Redis and database when given, else the embedded defaults. */
record DemoTargets(String amqpUri, String redisUri, String jdbcUrl) {

    static DemoTargets parse(CommandLine cl, String amqpUri, String redisUri, String jdbcUrl) {
        if (amqpUri != null) {
            requireUri(cl, "--amqp-uri", amqpUri, "amqp", "amqps");
        }
        if (redisUri != null) {
            requireUri(cl, "--redis-uri", redisUri, "redis", "rediss");
        }
        if (jdbcUrl != null) {
            String lower = jdbcUrl.toLowerCase(Locale.ROOT);
            if (!lower.startsWith("jdbc:postgresql:") && !lower.startsWith("jdbc:mariadb:")
                    && !lower.startsWith("jdbc:mysql:") && !lower.startsWith("jdbc:h2:")) {
                throw new CommandLine.ParameterException(cl, "--jdbc-url must be a jdbc:postgresql:, jdbc:mariadb:, "
                        + "jdbc:mysql: or jdbc:h2: URL, but was '" + jdbcUrl + "'");
            }
        }
        return new DemoTargets(amqpUri, redisUri, jdbcUrl);
    }

    static URI requireUri(CommandLine cl, String option, String value, String... schemes) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            throw new CommandLine.ParameterException(cl, option + " is not a valid URI: '" + value + "' ("
                    + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        for (String s : schemes) {
            if (s.equals(scheme)) {
                if (uri.getHost() == null || uri.getHost().isBlank()) {
                    throw new CommandLine.ParameterException(cl, option + " needs a host, but was '" + value + "'");
                }
                return uri;
            }
        }
        throw new CommandLine.ParameterException(cl, option + " must start with " + String.join(":// or ", schemes)
                + "://, but was '" + value + "'");
    }
}
