package io.github.once.outbox;

import io.github.once.jdbc.JdbcDialect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/sql-schema.md against the schema scripts in the jars (once-jdbc's record table, this module's outbox): for
 * each table and each dialect, the page lists exactly the columns the scripts create, each with the type the script
 * gives it and whether it may be null, and exactly the indexes. A renamed, added or retyped column fails the build
 * until the page says so.
 */
class SqlSchemaReferenceTest {
    private static final Path DOC = Path.of("..", "docs", "sql-schema.md");
    /** The dialects in the order of the columns table's type cells. */
    private static final List<JdbcDialect> DIALECTS = List.of(JdbcDialect.POSTGRESQL, JdbcDialect.MARIADB, JdbcDialect.H2);
    private static final String COLUMNS_HEADER = "| column | PostgreSQL | MariaDB | H2 | null | meaning |";
    private static final String INDEXES_HEADER = "| index | columns | used by |";
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern CREATE = Pattern.compile("CREATE TABLE IF NOT EXISTS (\\w+) \\((.*?)\\n\\)", Pattern.DOTALL);
    private static final Pattern ADD = Pattern.compile("ALTER TABLE (\\w+) ADD COLUMN IF NOT EXISTS (\\w+) ([^;]+);");
    private static final Pattern INDEX = Pattern.compile("CREATE INDEX IF NOT EXISTS (\\w+) ON (\\w+) \\(([^)]*)\\)");
    private static final Pattern KEY = Pattern.compile("^KEY (\\w+) \\(([^)]*)\\)");
    private static final Pattern PRIMARY = Pattern.compile("PRIMARY KEY \\(([^)]*)\\)");

    @Test
    void thePageListsEveryColumnOfEveryTableWithItsTypePerDialect() throws IOException {
        String page = Files.readString(DOC);
        for (JdbcDialect dialect : DIALECTS) {
            Schema schema = Schema.of(scripts(dialect));
            assertThat(schema.columns.keySet()).as("tables of the %s scripts", dialect)
                    .containsExactlyInAnyOrder("once_record", "once_outbox");
            for (String table : schema.columns.keySet()) {
                Map<String, List<String>> rows = rows(section(page, table), COLUMNS_HEADER);
                Map<String, String> columns = schema.columns.get(table);
                assertThat(rows.keySet()).as("columns of %s in %s, against the %s scripts", table, DOC, dialect)
                        .containsExactlyInAnyOrderElementsOf(columns.keySet());
                int cell = DIALECTS.indexOf(dialect) + 1;
                List<String> primaryKey = List.of(schema.indexes.get(table).get("primary key").split(",\\s*"));
                columns.forEach((column, definition) -> {
                    List<String> row = rows.get(column);
                    // Whole words, so that `INT` does not pass for INTEGER; what follows (collation, null) may differ.
                    assertThat(definition.toUpperCase(Locale.ROOT) + " ")
                            .as("%s.%s on %s: the page's type", table, column, dialect)
                            .startsWith(code(row.get(cell)).toUpperCase(Locale.ROOT) + " ");
                    // A primary key's columns are never null, whether or not the script says NOT NULL.
                    boolean nullable = !definition.toUpperCase(Locale.ROOT).contains("NOT NULL")
                            && !primaryKey.contains(column);
                    assertThat(row.get(4).trim()).as("%s.%s on %s: the page's null cell", table, column, dialect)
                            .isEqualTo(nullable ? "yes" : "no");
                });
            }
        }
    }

    @Test
    void thePageListsEveryIndexAndNamesEveryScript() throws IOException {
        String page = Files.readString(DOC);
        for (JdbcDialect dialect : DIALECTS) {
            List<String> resources = scripts(dialect);
            for (String resource : resources) {
                assertThat(page).as("the page names " + resource).contains(resource.substring(resource.lastIndexOf('/') + 1));
            }
            Schema schema = Schema.of(resources);
            for (String table : schema.columns.keySet()) {
                Map<String, String> documented = new TreeMap<>();
                rows(section(page, table), INDEXES_HEADER).forEach((name, cells) -> documented.put(name, code(cells.get(1))));
                assertThat(documented).as("indexes of %s in %s, against the %s scripts", table, DOC, dialect)
                        .isEqualTo(schema.indexes.get(table));
            }
        }
    }

    /** The scripts of a dialect in the order they apply: the record table's, then the outbox's. */
    private static List<String> scripts(JdbcDialect dialect) {
        List<String> resources = new ArrayList<>(dialect.migrationResources());
        resources.add(Outbox.schemaResource(dialect));
        return resources;
    }

    /** The part of the page under the heading that names {@code table}, up to the next heading of that level. */
    private static String section(String page, String table) {
        int start = page.indexOf("\n## `" + table + "`");
        assertThat(start).as("a section '## `%s`' in %s", table, DOC).isNotNegative();
        int end = page.indexOf("\n## ", start + 1);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    /** The rows of the table under {@code header}: the first cell's code -> the other cells. */
    private static Map<String, List<String>> rows(String section, String header) {
        int at = section.indexOf(header);
        assertThat(at).as("a table '%s' in %s", header, section.lines().skip(1).findFirst().orElse("")).isNotNegative();
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : section.substring(at).split("\n")) {
            if (line.isBlank()) {
                break;
            }
            if (line.startsWith("| `")) {
                String[] cells = line.split("\\|");
                rows.put(code(cells[1]), List.of(cells).subList(1, cells.length));
            }
        }
        return rows;
    }

    private static String code(String cell) {
        Matcher m = CODE.matcher(cell);
        assertThat(m.find()).as("a `code` value in '%s'", cell).isTrue();
        return m.group(1);
    }

    private static String read(String resource) throws IOException {
        try (InputStream in = SqlSchemaReferenceTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** What a dialect's scripts make: per table, each column with its definition, and each index with its columns. */
    private record Schema(Map<String, Map<String, String>> columns, Map<String, Map<String, String>> indexes) {

        static Schema of(List<String> resources) throws IOException {
            Schema schema = new Schema(new TreeMap<>(), new TreeMap<>());
            for (String resource : resources) {
                String script = read(resource).replaceAll("(?m)^--.*\\n", "");
                Matcher create = CREATE.matcher(script);
                while (create.find()) {
                    String table = create.group(1);
                    for (String line : create.group(2).split("\n")) {
                        schema.line(table, line.trim().replaceAll(",$", ""));
                    }
                }
                Matcher add = ADD.matcher(script);
                while (add.find()) {
                    schema.columns(add.group(1)).put(add.group(2), add.group(3).trim());
                }
                Matcher index = INDEX.matcher(script);
                while (index.find()) {
                    schema.indexes(index.group(2)).put(index.group(1), index.group(3));
                }
            }
            return schema;
        }

        /** One line of a CREATE TABLE: a column, a primary key or (MariaDB) an index. */
        private void line(String table, String line) {
            Matcher primary = PRIMARY.matcher(line);
            Matcher key = KEY.matcher(line);
            if (primary.find()) {
                indexes(table).put("primary key", primary.group(1));
            } else if (key.find()) {
                indexes(table).put(key.group(1), key.group(2));
            } else if (!line.isEmpty()) {
                String[] parts = line.split("\\s+", 2);
                columns(table).put(parts[0], parts[1]);
            }
        }

        private Map<String, String> columns(String table) {
            return columns.computeIfAbsent(table, t -> new LinkedHashMap<>());
        }

        private Map<String, String> indexes(String table) {
            return indexes.computeIfAbsent(table, t -> new TreeMap<>());
        }
    }
}
