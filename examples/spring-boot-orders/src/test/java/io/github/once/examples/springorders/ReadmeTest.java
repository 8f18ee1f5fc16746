package io.github.once.examples.springorders;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** This example's README shows the code and the properties as they are, so neither can drift from it. */
class ReadmeTest {

    @Test
    void theReadmeShowsTheListenerAsCompiled() throws Exception {
        String listener = Files.readString(
                Path.of("src/main/java/io/github/once/examples/springorders/OrderListener.java")).strip();
        assertThat(blocks("java")).as("README.md shows OrderListener.java as it is").contains(listener);
    }

    @Test
    void theReadmeShowsTheApplicationsProperties() throws Exception {
        String properties = Files.readString(Path.of("src/main/resources/application.properties")).strip();
        assertThat(blocks("properties")).as("README.md shows application.properties as it is").contains(properties);
    }

    @Test
    void theReadmeNamesOnceDependenciesThisPomHas() throws Exception {
        String once = "<groupId>io\\.github\\.once</groupId>\\s*<artifactId>(once-[^<]+)</artifactId>";
        List<String> shown = groups(blocks("xml").get(0), once);
        assertThat(shown).containsExactly("once-spring-boot-starter", "once-jdbc");
        String pom = Files.readString(Path.of("pom.xml")).replaceAll("(?s)<exclusions>.*?</exclusions>", "");
        assertThat(groups(pom, once)).as("the Once modules the application (not the test) depends on")
                .contains("once-spring-boot-starter", "once-jdbc");
    }

    private static List<String> blocks(String language) throws Exception {
        return groups(Files.readString(Path.of("README.md")), "(?s)```" + language + "\n(.*?)\n```");
    }

    private static List<String> groups(String text, String regex) {
        return Pattern.compile(regex).matcher(text).results().map(m -> m.group(1)).toList();
    }
}
