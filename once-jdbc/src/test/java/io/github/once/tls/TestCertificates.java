package io.github.once.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Certificates made by the test with openssl: a test CA, a server certificate it signed for {@code 127.0.0.1} and
 * {@code localhost} (subject alternative names), and a second CA that signed nothing the servers use, for the
 * untrusted case. Connecting to {@code 127.0.0.2}, which the certificate does not name, is the host name case.
 * Shared with other modules' tests through this module's test jar.
 */
public final class TestCertificates {
    /** The password of every trust store written here: not a secret, a trust store holds public certificates. */
    public static final String TRUST_STORE_PASSWORD = "changeit";
    /** A loopback address the server certificate does not name. */
    public static final String UNNAMED_HOST = "127.0.0.2";

    public final Path dir;
    public final Path ca;
    public final Path serverCert;
    public final Path serverKey;
    public final Path otherCa;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.ca = dir.resolve("ca.pem");
        this.serverCert = dir.resolve("server.pem");
        this.serverKey = dir.resolve("server.key");
        this.otherCa = dir.resolve("other-ca.pem");
    }

    /** Makes the certificates in {@code dir}; fails loudly when openssl is missing or refuses. */
    public static TestCertificates make(Path dir) throws IOException {
        Files.createDirectories(dir);
        TestCertificates c = new TestCertificates(dir);
        Path caKey = dir.resolve("ca.key");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Once test CA",
                "-keyout", caKey.toString(), "-out", c.ca.toString());
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Once other CA",
                "-keyout", dir.resolve("other-ca.key").toString(), "-out", c.otherCa.toString());
        Path csr = dir.resolve("server.csr");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                "-keyout", c.serverKey.toString(), "-out", csr.toString());
        Path ext = dir.resolve("server.ext");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                + "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n", StandardCharsets.US_ASCII);
        openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", c.ca.toString(), "-CAkey", caKey.toString(),
                "-CAcreateserial", "-days", "2", "-extfile", ext.toString(), "-out", c.serverCert.toString());
        return c;
    }

    /** A TLS context that trusts only {@code caPem}'s certificate. */
    public static SSLContext trusting(Path caPem) {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trustStore(caPem));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make a TLS context trusting " + caPem, e);
        }
    }

    /** Writes a PKCS12 trust store holding {@code caPem}, as {@code -Djavax.net.ssl.trustStore} reads one. */
    public Path trustStoreFile(Path caPem) throws IOException {
        Path file = dir.resolve(caPem.getFileName().toString().replace(".pem", "") + "-truststore.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            trustStore(caPem).store(out, TRUST_STORE_PASSWORD.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot write a trust store for " + caPem, e);
        }
        return file;
    }

    private static KeyStore trustStore(Path caPem) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        return store;
    }

    private static void openssl(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("openssl failed: " + String.join(" ", command) + "\n"
                        + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running openssl", e);
        }
    }
}
