package io.github.once.cli;

import io.github.once.tls.TestCertificates;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code JAVA_OPTS=-Djavax.net.ssl.trustStore=... ./once ...} sets, set in this JVM for one test; {@link
 * #restore()} (after each test) puts back what was there.
 */
public final class JvmTrustStore {
    private static final List<String> PROPERTIES = List.of(
            "javax.net.ssl.trustStore", "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType");

    private final Map<String, String> saved = new LinkedHashMap<>();

    /** Trusts what the PKCS12 {@code store} (made by {@link TestCertificates#trustStoreFile}) holds. */
    public void use(Path store) {
        for (String k : PROPERTIES) {
            saved.putIfAbsent(k, System.getProperty(k));
        }
        System.setProperty("javax.net.ssl.trustStore", store.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", TestCertificates.TRUST_STORE_PASSWORD);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    }

    public void restore() {
        saved.forEach((k, v) -> {
            if (v == null) {
                System.clearProperty(k);
            } else {
                System.setProperty(k, v);
            }
        });
        saved.clear();
    }
}
