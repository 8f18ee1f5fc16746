package io.github.once.rabbitmq;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the string and number fields at the top level of a JSON object, skipping everything else. Just enough
 * JSON to find an id, so the adapter needs no JSON library; anything that is not a well-formed object yields
 * no fields (and the message then has no id, which is a defined outcome).
 */
final class JsonFields {

    private final String text;
    private int pos;

    private JsonFields(String text) {
        this.text = text;
    }

    static Map<String, String> topLevelScalars(byte[] body) {
        if (body == null || body.length == 0) {
            return Map.of();
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body)).toString();
            return new JsonFields(text).object();
        } catch (CharacterCodingException | IllegalStateException e) {
            return Map.of();
        }
    }

    private Map<String, String> object() {
        Map<String, String> fields = new HashMap<>();
        skipSpace();
        expect('{');
        skipSpace();
        if (peek() == '}') {
            pos++;
            return fields;
        }
        while (true) {
            skipSpace();
            String name = string();
            skipSpace();
            expect(':');
            skipSpace();
            char c = peek();
            if (c == '"') {
                fields.putIfAbsent(name, string());
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                fields.putIfAbsent(name, number());
            } else {
                skipValue();
            }
            skipSpace();
            char next = next();
            if (next == '}') {
                skipSpace();
                if (pos != text.length()) {
                    throw new IllegalStateException("trailing text");
                }
                return fields;
            }
            if (next != ',') {
                throw new IllegalStateException("expected , or }");
            }
        }
    }

    private void skipValue() {
        char c = peek();
        switch (c) {
            case '"' -> string();
            case '{', '[' -> skipNested();
            default -> {
                int start = pos;
                while (pos < text.length() && "{}[],: \t\r\n\"".indexOf(text.charAt(pos)) < 0) {
                    pos++;
                }
                String word = text.substring(start, pos);
                if (!word.equals("true") && !word.equals("false") && !word.equals("null") && !isNumber(word)) {
                    throw new IllegalStateException("bad value");
                }
            }
        }
    }

    private void skipNested() {
        int depth = 0;
        do {
            char c = peek();
            if (c == '"') {
                string();
                continue;
            }
            pos++;
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
        } while (depth > 0);
    }

    private String number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String word = text.substring(start, pos);
        if (!isNumber(word)) {
            throw new IllegalStateException("bad number");
        }
        return word;
    }

    private static boolean isNumber(String word) {
        return word.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw new IllegalStateException("control character in string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw new IllegalStateException("short escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw new IllegalStateException("bad escape");
                    }
                    pos += 4;
                }
                default -> throw new IllegalStateException("bad escape");
            }
        }
    }

    private void skipSpace() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private void expect(char c) {
        if (next() != c) {
            throw new IllegalStateException("expected " + c);
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw new IllegalStateException("unexpected end");
        }
        return text.charAt(pos);
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }
}
