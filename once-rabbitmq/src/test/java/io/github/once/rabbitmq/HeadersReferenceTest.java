package io.github.once.rabbitmq;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/rabbitmq.md's table of the headers on moved messages against the code: it lists exactly the headers of
 * {@link OnceHeaders}, and the {@code x-once-reason} row exactly the codes of {@link DeadLetterReason}. A renamed
 * header or a new reason fails the build until the page says so.
 */
class HeadersReferenceTest {
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void theHeadersTableListsEveryHeaderAndEveryDeadLetterReason() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>(); // header -> the row's description cell
        for (String line : Files.readAllLines(Path.of("..", "docs", "rabbitmq.md"))) {
            if (line.startsWith("| `x-once-")) {
                String[] cells = line.split("\\|");
                for (String header : codes(cells[1])) {
                    rows.put(header, cells[3]);
                }
            }
        }
        Set<String> declared = new TreeSet<>();
        for (Field f : OnceHeaders.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                declared.add((String) f.get(null));
            }
        }
        assertThat(declared).contains(OnceHeaders.REASON, OnceHeaders.ATTEMPT);
        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(declared);
        assertThat(codes(rows.get(OnceHeaders.REASON))).containsExactlyInAnyOrderElementsOf(
                Arrays.stream(DeadLetterReason.values()).map(DeadLetterReason::code).toList());
    }

    private static List<String> codes(String cell) {
        Matcher m = CODE.matcher(cell);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
