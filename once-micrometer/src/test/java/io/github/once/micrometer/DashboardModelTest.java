package io.github.once.micrometer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard is a Grafana dashboard model Grafana can import: no Grafana is packaged for this machine's Debian,
 * so this checks the model's required fields (as Grafana's dashboard JSON model documents them) instead of
 * loading it into a server. Its queries are checked apart: {@code MeterNamesTest} (every name exported) and
 * {@code PrometheusAlertsTest} (every query evaluated by a real Prometheus).
 */
class DashboardModelTest {

    private static final Set<String> PANEL_TYPES = Set.of("row", "timeseries", "stat", "gauge", "bargauge", "table",
            "text", "heatmap");

    @Test
    void dashboardHasTheFieldsGrafanaNeedsToImportIt() throws IOException {
        Map<String, Object> dashboard = object(read());

        assertThat(dashboard.get("title")).asString().isNotBlank();
        assertThat(dashboard.get("uid")).asString().isNotBlank().hasSizeLessThanOrEqualTo(40); // Grafana's uid limit
        assertThat(dashboard.get("schemaVersion")).isInstanceOf(Long.class);
        List<Object> variables = list(object(dashboard.get("templating")).get("list"));
        List<String> names = new ArrayList<>();
        for (Object v : variables) {
            Map<String, Object> variable = object(v);
            names.add((String) variable.get("name"));
            assertThat(variable.get("type")).isIn("datasource", "query");
        }
        assertThat(names).containsExactly("datasource", "namespace", "queue");
        assertThat(object(variables.get(0)).get("query")).isEqualTo("prometheus");
    }

    @Test
    void everyPanelHasAnIdATypeAPlaceAndQueriesOnTheChosenDataSource() throws IOException {
        List<Map<String, Object>> panels = new ArrayList<>();
        flatten(list(object(read()).get("panels")), panels);
        assertThat(panels).isNotEmpty();
        Set<Long> ids = new HashSet<>();
        int queries = 0;
        for (Map<String, Object> panel : panels) {
            String title = (String) panel.get("title");
            assertThat(title).as("a panel's title").isNotBlank();
            assertThat(ids.add((Long) panel.get("id"))).as("unique id of " + title).isTrue();
            assertThat(panel.get("type")).as("type of " + title).isIn(PANEL_TYPES.toArray());
            Map<String, Object> grid = object(panel.get("gridPos"));
            long x = (Long) grid.get("x");
            long w = (Long) grid.get("w");
            assertThat((Long) grid.get("h")).as("height of " + title).isPositive();
            assertThat((Long) grid.get("y")).as("row of " + title).isNotNegative();
            assertThat(x).isNotNegative();
            assertThat(x + w).as("width of " + title + " within Grafana's 24 columns").isBetween(1L, 24L);
            if ("row".equals(panel.get("type"))) {
                continue;
            }
            assertThat(object(panel.get("datasource")).get("uid")).as("data source of " + title)
                    .isEqualTo("${datasource}");
            List<Object> targets = list(panel.get("targets"));
            assertThat(targets).as("queries of " + title).isNotEmpty();
            for (Object t : targets) {
                Map<String, Object> target = object(t);
                assertThat(target.get("refId")).asString().isNotBlank();
                assertThat(target.get("expr")).asString().contains("once_");
                queries++;
            }
        }
        assertThat(queries).isEqualTo(OpsFiles.dashboardExpressions().size());
    }

    private static void flatten(List<Object> panels, List<Map<String, Object>> into) {
        for (Object p : panels) {
            Map<String, Object> panel = object(p);
            into.add(panel);
            if (panel.get("panels") != null) {
                flatten(list(panel.get("panels")), into);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        assertThat(value).isInstanceOf(List.class);
        return (List<Object>) value;
    }

    private static Object read() throws IOException {
        try (JsonParser parser = new JsonFactory().createParser(Files.readString(OpsFiles.DASHBOARD))) {
            parser.nextToken();
            Object value = value(parser);
            assertThat(parser.nextToken()).as("nothing after the dashboard object").isNull();
            return value;
        }
    }

    /** The value at the parser's current token: objects as maps, arrays as lists, numbers as Long or Double. */
    private static Object value(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    assertThat(map.put(name, value(parser))).as("field " + name + " given once").isNull();
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser));
                }
                return list;
            }
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return parser.getDoubleValue();
            case VALUE_TRUE:
            case VALUE_FALSE:
                return parser.getBooleanValue();
            case VALUE_NULL:
                return null;
            default:
                throw new AssertionError("unexpected " + token + " in the dashboard");
        }
    }
}
