package io.github.once.cli.ops;

import io.github.once.IdempotencyRecord;
import io.github.once.spi.StoreInspector;

import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.StringJoiner;

/** The operating commands' JSON, written by hand: a few flat objects. */
public final class Json {
    private Json() {
    }

    static String record(StoreInspector.Inspected found) {
        IdempotencyRecord r = found.record();
        String text = r.result() == null ? null : InspectCommand.utf8(r.result());
        return "{\"namespace\":" + str(r.key().namespace()) + ",\"id\":" + str(r.key().id())
                + ",\"storageId\":" + str(r.key().storageId())
                + ",\"storageKey\":" + nullable(found.storageKey())
                + ",\"state\":" + str(r.state().name()) + ",\"standing\":" + str(found.standing().name())
                + ",\"token\":" + r.token() + ",\"claimedAt\":" + instant(found.claimedAt())
                + ",\"leaseUntil\":" + instant(r.leaseUntil()) + ",\"expiresAt\":" + instant(r.expiresAt())
                + ",\"fingerprint\":" + nullable(r.fingerprint())
                + ",\"resultBase64\":" + (r.result() == null ? "null" : str(Base64.getEncoder().encodeToString(r.result())))
                + ",\"resultText\":" + nullable(text) + "}";
    }

    static String stats(StoreInspector.Counts c, boolean tellsReleased, List<StoreInspector.Summary> oldest, String where,
            String namespace, String note) {
        StringJoiner list = new StringJoiner(",", "[", "]");
        for (StoreInspector.Summary r : oldest) {
            list.add(summary(r, c.now()));
        }
        return "{\"store\":" + str(where) + ",\"namespace\":" + nullable(namespace)
                + ",\"now\":" + instant(c.now())
                + ",\"completed\":" + c.completed() + ",\"inProgress\":" + c.inProgress()
                + ",\"released\":" + (tellsReleased ? String.valueOf(c.released()) : "null")
                + ",\"lapsed\":" + c.lapsed() + ",\"expiredBacklog\":" + c.expired()
                + ",\"oldestInProgress\":" + (oldest.isEmpty() ? "null" : summary(oldest.get(0), c.now()))
                + ",\"oldest\":" + list
                + ",\"note\":" + nullable(note) + "}";
    }

    private static String summary(StoreInspector.Summary r, Instant now) {
        return "{\"key\":" + str(r.displayKey()) + ",\"standing\":" + str(r.standing().name())
                + ",\"claimedAt\":" + instant(r.claimedAt()) + ",\"leaseUntil\":" + instant(r.leaseUntil())
                + ",\"ageMillis\":" + Math.max(0, now.toEpochMilli() - r.claimedAt().toEpochMilli()) + "}";
    }

    static String purge(boolean dryRun, long count, String where, String namespace, String note) {
        return "{\"store\":" + str(where) + ",\"namespace\":" + nullable(namespace) + ",\"dryRun\":" + dryRun
                + ",\"count\":" + count + ",\"note\":" + nullable(note) + "}";
    }

    private static String instant(Instant t) {
        return t == null ? "null" : str(t.toString());
    }

    private static String nullable(String s) {
        return s == null ? "null" : str(s);
    }

    public static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
