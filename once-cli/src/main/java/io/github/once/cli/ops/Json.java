package io.github.once.cli.ops;

import io.github.once.IdempotencyRecord;
import java.time.Instant;
import java.util.Base64;

/** The operating commands' JSON, written by hand: a few flat objects. */
final class Json {
    private Json() {
    }

    static String record(IdempotencyRecord r, String redisKey) {
        String text = r.result() == null ? null : InspectCommand.utf8(r.result());
        return "{\"namespace\":" + str(r.key().namespace()) + ",\"id\":" + str(r.key().id())
                + ",\"storageId\":" + str(r.key().storageId())
                + (redisKey == null ? "" : ",\"redisKey\":" + str(redisKey))
                + ",\"state\":" + str(r.state().name()) + ",\"token\":" + r.token()
                + ",\"leaseUntil\":" + str(r.leaseUntil().toString()) + ",\"expiresAt\":" + str(r.expiresAt().toString())
                + ",\"fingerprint\":" + (r.fingerprint() == null ? "null" : str(r.fingerprint()))
                + ",\"resultBase64\":" + (r.result() == null ? "null" : str(Base64.getEncoder().encodeToString(r.result())))
                + ",\"resultText\":" + (text == null ? "null" : str(text)) + "}";
    }

    static String stats(StoreStats s, String where, String namespace) {
        return "{\"store\":" + str(where) + ",\"namespace\":" + (namespace == null ? "null" : str(namespace))
                + ",\"now\":" + str(s.now().toString())
                + ",\"completed\":" + s.completed() + ",\"inProgress\":" + s.inProgress() + ",\"lapsed\":" + s.lapsed()
                + ",\"expiredBacklog\":" + s.expiredBacklog()
                + ",\"oldestInProgress\":" + (s.oldestKey() == null ? "null"
                        : "{\"key\":" + str(s.oldestKey()) + ",\"claimedAt\":" + instant(s.oldestClaimedAt())
                                + ",\"ageMillis\":" + Math.max(0, s.now().toEpochMilli()
                                        - s.oldestClaimedAt().toEpochMilli()) + "}")
                + ",\"note\":" + (s.note() == null ? "null" : str(s.note())) + "}";
    }

    static String purge(PurgeReport p, String where) {
        return "{\"store\":" + str(where) + ",\"dryRun\":" + p.dryRun() + ",\"count\":" + p.count()
                + ",\"note\":" + (p.note() == null ? "null" : str(p.note())) + "}";
    }

    private static String instant(Instant t) {
        return t == null ? "null" : str(t.toString());
    }

    static String str(String s) {
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
