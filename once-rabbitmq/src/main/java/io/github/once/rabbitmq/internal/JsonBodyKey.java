package io.github.once.rabbitmq.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import io.github.once.rabbitmq.KeyExtractor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The id from a JSON body: the first of the paths that holds a string or a number. The pass stops once the
 * answer is certain, that is when a path holds an id and every path before it is settled.
 */
public final class JsonBodyKey implements JsonPaths.Visitor {

    private final JsonPaths paths;
    private final KeyExtractor.Lookup[] results;

    private JsonBodyKey(JsonPaths paths) {
        this.paths = paths;
        this.results = new KeyExtractor.Lookup[paths.size()];
    }

    /** Never throws: a body that cannot be read is a missing key with the reason. */
    public static KeyExtractor.Lookup lookup(JsonPaths paths, byte[] body) {
        if (body == null || body.length == 0) {
            return KeyExtractor.Lookup.missing("body is empty");
        }
        JsonBodyKey key = new JsonBodyKey(paths);
        try {
            if (!paths.scan(body, key)) {
                return KeyExtractor.Lookup.missing("body is blank");
            }
        } catch (JsonProcessingException e) {
            return KeyExtractor.Lookup.missing("body is not JSON: " + JsonPaths.describe(e));
        } catch (IOException | RuntimeException e) {
            return KeyExtractor.Lookup.missing("body could not be read as JSON: " + e);
        }
        return key.result();
    }

    @Override
    public boolean value(int path, JsonParser parser) throws IOException {
        results[path] = read(parser, path);
        return decided();
    }

    @Override
    public boolean missing(int path, String why) {
        results[path] = field(path, why == null ? "is absent" : "is absent (" + why + ")");
        return decided();
    }

    /** The id at this path, the detail built only when there is none (this is the hot path). */
    private KeyExtractor.Lookup read(JsonParser parser, int path) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case VALUE_STRING: {
                String id = parser.getText();
                return id.isBlank() ? field(path, "is blank") : KeyExtractor.Lookup.found(id);
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                try {
                    return KeyExtractor.Lookup.found(CanonicalNumber.of(parser));
                } catch (NumberFormatException e) {
                    return field(path, "is a number whose exponent is out of range");
                }
            case VALUE_NULL:
                return field(path, "is null");
            default:
                parser.skipChildren();
                return field(path, "is " + JsonPaths.kind(token) + ", not a string or number");
        }
    }

    private KeyExtractor.Lookup field(int path, String what) {
        return KeyExtractor.Lookup.missing("body field " + paths.label(path) + " " + what);
    }

    private boolean decided() {
        for (KeyExtractor.Lookup result : results) {
            if (result == null) {
                return false;
            }
            if (result instanceof KeyExtractor.Lookup.Found) {
                return true;
            }
        }
        return true;
    }

    private KeyExtractor.Lookup result() {
        List<String> details = new ArrayList<>(results.length);
        for (int i = 0; i < results.length; i++) {
            KeyExtractor.Lookup result = results[i];
            if (result instanceof KeyExtractor.Lookup.Found) {
                return result;
            }
            details.add(((KeyExtractor.Lookup.Missing) (result == null ? field(i, "is absent") : result)).detail());
        }
        return KeyExtractor.Lookup.missing(String.join("; ", details));
    }
}
