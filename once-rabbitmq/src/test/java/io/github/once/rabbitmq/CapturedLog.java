package io.github.once.rabbitmq;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.spi.LoggingEventAware;

/**
 * An SLF4J logger that keeps every line with its key-value pairs, for tests to read. SLF4J's fluent API hands a
 * {@link LoggingEventAware} logger the whole event, pairs included, whatever binding the tests run with.
 */
final class CapturedLog extends LegacyAbstractLogger implements LoggingEventAware {

    record Line(Level level, String message, Map<String, Object> pairs, Throwable cause) {
        Object get(String key) {
            return pairs.get(key);
        }
    }

    private final List<Line> lines = new CopyOnWriteArrayList<>();
    private final Level threshold;

    CapturedLog(Level threshold) {
        this.threshold = threshold;
        this.name = "captured";
    }

    List<Line> lines() {
        return List.copyOf(lines);
    }

    List<Line> lines(String message) {
        return lines.stream().filter(l -> l.message().equals(message)).toList();
    }

    @Override
    public void log(LoggingEvent event) {
        Map<String, Object> pairs = new LinkedHashMap<>();
        List<KeyValuePair> kvs = event.getKeyValuePairs();
        if (kvs != null) {
            for (KeyValuePair kv : kvs) {
                pairs.put(kv.key, kv.value);
            }
        }
        lines.add(new Line(event.getLevel(), event.getMessage(), pairs, event.getThrowable()));
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        lines.add(new Line(level, messagePattern, Map.of(), throwable));
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    private boolean enabled(Level level) {
        return level.toInt() >= threshold.toInt();
    }

    @Override
    public boolean isTraceEnabled() {
        return enabled(Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return enabled(Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return enabled(Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return enabled(Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return enabled(Level.ERROR);
    }

}
