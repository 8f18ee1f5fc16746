package io.github.once.rabbitmq;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.github.once.rabbitmq.KeyExtractor.jsonBody;
import static io.github.once.rabbitmq.KeyExtractor.jsonPointer;
import static io.github.once.rabbitmq.KeyExtractorTest.body;
import static io.github.once.rabbitmq.KeyExtractorTest.detail;
import static io.github.once.rabbitmq.KeyExtractorTest.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Nested ids by JSON Pointer, and the rule that tells a pointer from a field name. */
class KeyExtractorJsonPointerTest {

    @Test
    void aPointerReachesANestedIdAndSkipsEverythingElse() {
        KeyExtractor orderId = jsonPointer("/order/id");
        String body = "{\"a\":{\"order\":{\"id\":1}},\"order\":{\"sku\":[1,{\"id\":2}],\"id\":\"o-7\"}}";
        assertThat(id(orderId, body(body))).isEqualTo("o-7");
        assertThat(id(orderId, body("{\"order\":{\"id\":42.0}}"))).isEqualTo("42");
        assertThat(id(jsonBody("/order/id"), body("{\"order\":{\"id\":\"same rule\"}}"))).isEqualTo("same rule");
    }

    @Test
    void pointersIndexArraysAndUnescapeNames() {
        assertThat(id(jsonPointer("/items/1/sku"), body("{\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\"}]}")))
                .isEqualTo("b");
        assertThat(id(jsonPointer("/0"), body("[\"first\",\"second\"]"))).isEqualTo("first");
        // On an object "0" is a member name, as RFC 6901 says.
        assertThat(id(jsonPointer("/0"), body("{\"0\":\"zero\"}"))).isEqualTo("zero");
        assertThat(id(jsonPointer("/a~1b/c~0d"), body("{\"a/b\":{\"c~d\":\"escaped\"}}"))).isEqualTo("escaped");
    }

    @Test
    void aNameWithoutALeadingSlashIsATopLevelField() {
        // "order/id" is one field whose name holds a slash; "/order/id" is a path.
        assertThat(id(jsonBody("order/id"), body("{\"order/id\":\"flat\",\"order\":{\"id\":\"nested\"}}")))
                .isEqualTo("flat");
        assertThat(id(jsonBody("/order/id"), body("{\"order/id\":\"flat\",\"order\":{\"id\":\"nested\"}}")))
                .isEqualTo("nested");
        // A top-level name never indexes an array.
        assertThat(detail(jsonBody("0"), body("[\"x\"]"))).isEqualTo("body field 0 is absent (the body is an array, "
                + "not an object)");
    }

    @Test
    void namesAndPointersMixAndTheFirstWithAnIdWins() {
        KeyExtractor keys = jsonBody("order_id", "/order/id");
        assertThat(id(keys, body("{\"order\":{\"id\":\"nested\"},\"order_id\":\"top\"}"))).isEqualTo("top");
        assertThat(id(keys, body("{\"order\":{\"id\":\"nested\"}}"))).isEqualTo("nested");
        assertThat(detail(keys, body("{\"order\":{}}")))
                .isEqualTo("body field order_id is absent; body field /order/id is absent");
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource(delimiter = '|', value = {
            "/order/id | {\"sku\":1} | body field /order/id is absent (there is no /order)",
            "/order/id | {\"order\":\"o-1\"} | body field /order/id is absent"
                    + " (/order is a string, not an object)",
            "/order/id | {\"order\":[1]} | body field /order/id is absent (/order is an array, not an object)",
            "/order/id | {\"order\":{\"id\":null}} | body field /order/id is null",
            "/items/2/sku | {\"items\":[{\"sku\":1}]} | body field /items/2/sku is absent (there is no /items/2)",
            "/items/0/sku | {\"items\":7} | body field /items/0/sku is absent"
                    + " (/items is a number, not an object or array)"})
    void detailsSayWhereThePathBrokeOff(String pointer, String body, String detail) {
        assertThat(detail(jsonPointer(pointer), body(body))).isEqualTo(detail);
    }

    @Test
    void badPathsAreRejectedWhenTheExtractorIsMade() {
        assertThatThrownBy(() -> jsonPointer("order_id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("starts with '/'");
        assertThatThrownBy(() -> jsonBody("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> jsonBody(new String[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> jsonBody("/order", "/order/id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/order' and '/order/id'");
        assertThatThrownBy(() -> jsonBody("id", "/id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not repeat");
    }
}
