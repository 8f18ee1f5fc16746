package io.github.once.rabbitmq;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The id from a JSON body: the first of the paths that holds a string or a number. The pass stops once the
 * answer is certain, that is when a path holds an id and every path before it is settled.
 */
final class JsonBodyKey implements JsonPaths.Visitor {

    private final JsonPaths paths;
    private final KeyLookup[] results;

    private JsonBodyKey(JsonPaths paths) {
        this.paths = paths;
        this.results = new KeyLookup[paths.size()];
    }

    /** Never throws: a body that cannot be read is a missing key with the reason. */
    static KeyLookup lookup(JsonPaths paths, byte[] body) {
        if (body == null || body.length == 0) {
            return KeyLookup.missing("body is empty");
        }
        JsonBodyKey key = new JsonBodyKey(paths);
        try {
            if (!paths.scan(body, key)) {
                return KeyLookup.missing("body is blank");
            }
        } catch (JsonProcessingException e) {
            return KeyLookup.missing("body is not JSON: " + JsonPaths.describe(e));
        } catch (IOException | RuntimeException e) {
            return KeyLookup.missing("body could not be read as JSON: " + e);
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
    private KeyLookup read(JsonParser parser, int path) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case VALUE_STRING: {
                String id = parser.getText();
                return id.isBlank() ? field(path, "is blank") : KeyLookup.found(id);
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                try {
                    return KeyLookup.found(CanonicalNumber.of(parser));
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

    private KeyLookup field(int path, String what) {
        return KeyLookup.missing("body field " + paths.label(path) + " " + what);
    }

    private boolean decided() {
        for (KeyLookup result : results) {
            if (result == null) {
                return false;
            }
            if (result instanceof KeyLookup.Found) {
                return true;
            }
        }
        return true;
    }

    private KeyLookup result() {
        List<String> details = new ArrayList<>(results.length);
        for (int i = 0; i < results.length; i++) {
            KeyLookup result = results[i];
            if (result instanceof KeyLookup.Found) {
                return result;
            }
            details.add(((KeyLookup.Missing) (result == null ? field(i, "is absent") : result)).detail());
        }
        return KeyLookup.missing(String.join("; ", details));
    }
}
