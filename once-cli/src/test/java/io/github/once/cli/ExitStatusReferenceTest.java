package io.github.once.cli;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/cli.md's table of exit statuses lists exactly the statuses of {@link ExitCodes}, and no other. */
class ExitStatusReferenceTest {

    @Test
    void theDocsTableListsEveryExitStatus() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "cli.md"));
        int table = page.indexOf("| status | meaning |");
        assertThat(table).as("the exit status table of docs/cli.md").isNotNegative();
        Set<Integer> documented = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(page.substring(table, page.indexOf("\n\n", table)));
        while (row.find()) {
            documented.add(Integer.parseInt(row.group(1)));
        }
        Set<Integer> declared = new TreeSet<>();
        for (Field f : ExitCodes.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                declared.add(f.getInt(null));
            }
        }
        assertThat(declared).contains(ExitCodes.OK, ExitCodes.INTERNAL);
        assertThat(documented).isEqualTo(declared);
    }
}
