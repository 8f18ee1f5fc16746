package io.github.once.rabbitmq;

import java.math.BigDecimal;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static io.github.once.rabbitmq.KeyExtractor.header;
import static io.github.once.rabbitmq.KeyExtractor.jsonBody;
import static io.github.once.rabbitmq.KeyExtractorTest.body;
import static io.github.once.rabbitmq.KeyExtractorTest.delivery;
import static io.github.once.rabbitmq.KeyExtractorTest.detail;
import static io.github.once.rabbitmq.KeyExtractorTest.id;
import static org.assertj.core.api.Assertions.assertThat;

/** One key per numeric value, however the number is written. */
class KeyExtractorNumbersTest {

    private final KeyExtractor orderId = jsonBody("order_id");

    private String keyOf(String literal) {
        return id(orderId, body("{\"order_id\":" + literal + "}"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "12|12", "12.0|12", "1.2e1|12", "1.2E+1|12", "12.000|12", "120e-1|12", "0.12e2|12",
            "-12|-12", "-12.0|-12",
            "0|0", "-0|0", "0.0|0", "-0.0|0", "0e5|0",
            "12.50|12.5", "1e-3|0.001", "-1.5e3|-1500", "1e2|100",
            "123456789012345678901234567890|123456789012345678901234567890",
            "123456789012345678901234567890.0|123456789012345678901234567890",
            "1e400|1E+400", "10e399|1E+400", "1.5e-200|1.5E-200", "1e101|1E+101"})
    void numbersWrittenDifferentlyGiveOneKey(String literal, String key) {
        assertThat(keyOf(literal)).isEqualTo(key);
    }

    @Test
    void theScientificFormStartsMoreThanAHundredPlacesFromThePoint() {
        assertThat(keyOf("1e100")).isEqualTo("1" + "0".repeat(100));
        assertThat(keyOf("1" + "0".repeat(100))).isEqualTo("1" + "0".repeat(100));
        // An integer written out in full takes the same key as its exponent form.
        assertThat(keyOf("1" + "0".repeat(150))).isEqualTo(keyOf("1e150")).isEqualTo("1E+150");
        assertThat(keyOf("1e-100")).isEqualTo("0." + "0".repeat(99) + "1");
    }

    @Test
    void aHugeExponentNeitherExpandsNorThrows() {
        assertThat(keyOf("1e999999999")).isEqualTo("1E+999999999");
        assertThat(detail(orderId, body("{\"order_id\":1e99999999999}")))
                .isEqualTo("body field order_id is a number whose exponent is out of range");
    }

    @Test
    void aStringWithTheSameTextIsTheSameKey() {
        assertThat(keyOf("\"12\"")).isEqualTo(keyOf("12"));
        // Strings are taken as written: only numbers are normalised.
        assertThat(keyOf("\"12.0\"")).isEqualTo("12.0");
    }

    @Test
    void numericHeadersFollowTheSameRule() {
        KeyExtractor header = header("x-key");
        assertThat(id(header, delivery(null, Map.of("x-key", 12), "{}"))).isEqualTo("12");
        assertThat(id(header, delivery(null, Map.of("x-key", 12.0f), "{}"))).isEqualTo("12");
        assertThat(id(header, delivery(null, Map.of("x-key", new BigDecimal("12.50")), "{}"))).isEqualTo("12.5");
        assertThat(id(header, delivery(null, Map.of("x-key", -0.0d), "{}"))).isEqualTo("0");
    }
}
