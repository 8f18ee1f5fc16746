package io.github.once.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The starter ships the metadata spring-boot-configuration-processor generated, so IDEs complete once.*. */
class ConfigurationMetadataTest {

    @Test
    void metadataListsEveryOnceProperty() throws IOException {
        String json = null;
        for (URL url : Collections.list(getClass().getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (text.contains("io.github.once.spring.boot.OnceProperties")) {
                    json = text;
                }
            }
        }
        assertThat(json).as("the starter's metadata").isNotNull();
        for (String name : List.of("once.store", "once.namespace", "once.lease", "once.retention", "once.fingerprint",
                "once.fingerprint-fields", "once.observation-enabled", "once.jdbc.table", "once.jdbc.create-table", "once.jdbc.transactional",
                "once.redis.key-prefix", "once.redis.timeout", "once.retry.max-attempts", "once.retry.backoff",
                "once.rabbit.advise-factories", "once.rabbit.every-listener", "once.rabbit.declare",
                "once.rabbit.queue-type", "once.rabbit.move-timeout", "once.rabbit.store-backoff",
                "once.rabbit.max-store-backoff", "once.fail-fast")) {
            assertThat(json).contains("\"name\": \"" + name + "\"");
        }
        // The javadoc of each field becomes the IDE's description.
        assertThat(json).contains("How long a claim holds a key while the listener runs");
    }
}
