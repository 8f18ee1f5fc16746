package io.github.once.cli;

import com.rabbitmq.client.ConnectionFactory;

import io.lettuce.core.RedisURI;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.time.Duration;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CLI's {@code --amqp-uri} and {@code --redis-uri} made into clients' settings; an error names the option,
 * never the URI, which may hold a password. An {@code amqps://} URI gets TLS that checks the broker's certificate
 * against the JVM's trust store ({@code -Djavax.net.ssl.trustStore=...} in {@code JAVA_OPTS} when set, else the
 * JDK's {@code cacerts}) and checks that the certificate names the host in the URI.
 */
public final class ServiceUris {
    private ServiceUris() {
    }

    /** A connection factory for {@code uri}, or a usage error naming {@code option}. */
    public static ConnectionFactory amqp(String uri, String option) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
        } catch (Exception e) {
            throw CliException.usage(option + " is not a usable AMQP URI (" + e.getClass().getSimpleName() + ")");
        }
        if (factory.isSSL()) {
            // setUri turns TLS on with a trust manager that accepts every certificate: replace it.
            factory.useSslProtocol(verifyingContext());
            factory.enableHostnameVerification();
        }
        return factory;
    }

    /**
     * A TLS context that trusts what the JVM's trust store trusts. Made afresh each time rather than
     * {@code SSLContext.getDefault()}, which is fixed by the first caller in the process.
     */
    private static SSLContext verifyingContext() {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init((KeyStore) null); // null: the javax.net.ssl.trustStore properties, else the JDK's cacerts
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new CliException(ExitCodes.USAGE, "cannot load the JVM's trust store for amqps:// ("
                    + e.getMessage() + "); check -Djavax.net.ssl.trustStore and its type and password", e);
        }
    }

    /** {@code --redis-uri} with the CLI's 3 s timeout, or a usage error. */
    public static RedisURI redis(String uri) {
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw CliException.usage("--redis-uri is not a usable Redis URI (" + e.getClass().getSimpleName() + ")");
        }
        parsed.setTimeout(Duration.ofSeconds(3));
        return parsed;
    }

    /**
     * The broker at {@code where} could not be reached: said plainly when its certificate was refused, else with
     * {@code reason}.
     */
    public static CliException unreachable(Exception failure, String where, String reason) {
        String tls = certificateProblem(failure, where);
        return CliException.unreachable(tls != null ? tls : "cannot reach " + where + " (" + reason + ")", failure);
    }

    /** Why a connection to {@code where} failed, when it was about TLS; {@code null} otherwise. */
    private static String certificateProblem(Throwable failure, String where) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLHandshakeException || t instanceof CertificateException) {
                return "the TLS certificate of " + where + " was not accepted (" + t.getMessage() + "): the"
                        + " certificate must chain to a CA in the JVM's trust store (set it with JAVA_OPTS="
                        + "-Djavax.net.ssl.trustStore=FILE) and name the host of --amqp-uri";
            }
            if (t instanceof SSLException) {
                return "TLS with " + where + " failed (" + t.getMessage() + "): check that the port speaks TLS"
                        + " (amqps://) and that its certificate is trusted";
            }
        }
        return null;
    }
}
