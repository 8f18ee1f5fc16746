package io.github.once.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code once.*} properties table of docs/spring.md against the starter's configuration metadata (what the
 * IDE and Boot know): every property is in the table with the default the metadata gives, and the table names no
 * property the starter does not have. A renamed property or a changed default fails the build.
 */
class PropertiesReferenceTest {
    private static final Path DOC = Path.of("..", "docs", "spring.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void everyPropertyIsInTheDocsTableWithItsDefaultAndTheTableNamesNoOther() throws IOException {
        Map<String, Object> metadata = starterMetadata();
        Map<String, String> documented = documentedDefaults();

        List<String> missing = new ArrayList<>();
        List<String> wrongDefault = new ArrayList<>();
        metadata.forEach((name, declared) -> {
            if (!documented.containsKey(name)) {
                missing.add(name);
            } else if (declared != null && !String.valueOf(declared).equalsIgnoreCase(documented.get(name))) {
                wrongDefault.add(name + ": metadata " + declared + ", docs " + documented.get(name));
            }
        });
        assertThat(missing).as("properties missing from the table in " + DOC).isEmpty();
        assertThat(wrongDefault).as("defaults that differ").isEmpty();
        assertThat(documented.keySet()).as("properties in the table that the starter does not have")
                .isSubsetOf(metadata.keySet());
        assertThat(metadata).as("the starter's metadata").containsKeys("once.store", "once.lease", "once.retention");
    }

    /** The {@code once.*} properties of the starter's metadata, with their declared default (or null). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> starterMetadata() throws IOException {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (URL url : Collections.list(PropertiesReferenceTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            String json;
            try (InputStream in = url.openStream()) {
                json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            for (Object p : (List<Object>) JsonParserFactory.getJsonParser().parseMap(json).get("properties")) {
                Map<String, Object> property = (Map<String, Object>) p;
                String name = (String) property.get("name");
                if (name.startsWith("once.")) {
                    properties.put(name, property.get("defaultValue"));
                }
            }
        }
        return properties;
    }

    /**
     * The table's rows: a first cell naming one or more properties, a second cell their defaults in the same
     * order (a row may give fewer defaults than names, or a description instead of a code value).
     */
    private static Map<String, String> documentedDefaults() throws IOException {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (String line : Files.readAllLines(DOC)) {
            if (!line.startsWith("| `once.")) {
                continue;
            }
            String[] cells = line.split("\\|");
            List<String> names = codes(cells[1]);
            List<String> values = codes(cells[2]);
            for (int i = 0; i < names.size(); i++) {
                defaults.put(names.get(i), i < values.size() ? values.get(i) : null);
            }
        }
        assertThat(defaults).as("the properties table of " + DOC).isNotEmpty();
        return defaults;
    }

    private static List<String> codes(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
