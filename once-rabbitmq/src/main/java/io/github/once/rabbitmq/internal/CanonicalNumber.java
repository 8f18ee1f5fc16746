package io.github.once.rabbitmq.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.math.BigDecimal;

/**
 * One text per numeric value, so {@code 12}, {@code 12.0} and {@code 1.2e1} are the same key: the plain form
 * without trailing zeros, or the scientific form for values so far from the decimal point that the plain form
 * would be huge text from a few bytes ({@code 1e999999999}).
 */
public final class CanonicalNumber {

    /** Beyond this many places from the decimal point, the plain form gives way to the scientific one. */
    static final int MAX_PLAIN_SCALE = 100;

    private CanonicalNumber() {
    }

    public static String of(BigDecimal value) {
        if (value.signum() == 0) {
            return "0"; // also -0, 0.0 and 0e5
        }
        BigDecimal stripped = value.stripTrailingZeros();
        return Math.abs(stripped.scale()) <= MAX_PLAIN_SCALE ? stripped.toPlainString() : stripped.toString();
    }

    /**
     * The canonical text of a JSON number literal. A short integer literal is already canonical (JSON allows no
     * leading zeros and no plus sign) except {@code -0}, so only fractions, exponents and integers long enough to
     * end in more than {@value #MAX_PLAIN_SCALE} zeros pay for a BigDecimal.
     *
     * @throws NumberFormatException when the exponent is beyond what BigDecimal holds
     */
    static String ofJson(String literal, boolean integer) {
        if (integer && literal.length() <= MAX_PLAIN_SCALE) {
            return literal.equals("-0") ? "0" : literal;
        }
        return of(new BigDecimal(literal));
    }

    /** The canonical text of the number the parser is on. */
    public static String of(JsonParser parser) throws IOException {
        return ofJson(parser.getText(), parser.currentToken() == JsonToken.VALUE_NUMBER_INT);
    }
}
