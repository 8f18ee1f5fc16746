package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.cli.CliException;
import io.github.once.cli.ExitCodes;
import io.github.once.spi.StoreInspector;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code once inspect <namespace> <id>}: one record as the store holds it. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = "Shows one record: its standing (in progress, released, lapsed or completed), claim time, "
                + "fencing token, lease, expiry, fingerprint and result. "
                + "Exit status 1 when there is no record (never claimed, expired, or claimed only in "
                + "transactions that rolled back).")
public final class InspectCommand implements Callable<Integer> {

    private static final int MAX_RESULT_SHOWN = 200;
    /** Transactional mode writes the claim in the handler's transaction: an attempt that failed leaves nothing. */
    static final String NO_RECORD = "never claimed, expired, or claimed only in transactions that rolled back:"
            + " in transactional mode a failed attempt leaves no record";

    @Parameters(index = "0", paramLabel = "NAMESPACE", description = "The key's namespace (often the queue name).")
    String namespace;

    @Parameters(index = "1", paramLabel = "ID", description = "The key's id (often the message_id).")
    String id;

    @Mixin
    StoreOptions store;

    @Option(names = "--json", description = "Print the record as JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        IdempotencyKey key;
        try {
            key = IdempotencyKey.of(namespace, id);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        try (OpsStore s = store.open()) {
            Optional<StoreInspector.Inspected> found = s.inspect(key);
            if (json) {
                out.println(found.map(Json::record).orElse("null"));
            } else if (found.isEmpty()) {
                out.println("no record for " + key + " in " + s.describe() + " (" + NO_RECORD + ")");
            } else {
                print(out, found.get(), s);
            }
            out.flush();
            return found.isPresent() ? ExitCodes.OK : 1;
        }
    }

    private static void print(PrintWriter out, StoreInspector.Inspected found, OpsStore s) {
        Instant now = Instant.now();
        IdempotencyRecord r = found.record();
        out.println("key          " + r.key() + "  (" + s.describe() + ")");
        if (found.storageKey() != null) {
            out.println("stored as    " + found.storageKey());
        }
        if (r.key().isDigested()) {
            out.println("stored id    " + r.key().storageId());
        }
        out.println("state        " + found.standing() + "  (" + Standings.explain(found.standing(),
                s.tellsReleasedFromLapsed()) + ")");
        out.println("claimed at   " + found.claimedAt() + relative(found.claimedAt(), now));
        out.println("token        " + r.token());
        out.println((r.state() == RecordState.COMPLETED ? "completed at " : "lease until  ") + r.leaseUntil()
                + relative(r.leaseUntil(), now));
        out.println("expires at   " + r.expiresAt() + relative(r.expiresAt(), now));
        out.println("fingerprint  " + (r.fingerprint() == null ? "(none)" : r.fingerprint()));
        out.println("result       " + describeResult(r.result()));
    }

    static String describeResult(byte[] result) {
        if (result == null) {
            return "(none)";
        }
        String text = utf8(result);
        if (text != null && text.codePoints().noneMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\t')) {
            String shown = text.length() > MAX_RESULT_SHOWN ? text.substring(0, MAX_RESULT_SHOWN) + "..." : text;
            return result.length + " bytes, text: " + shown.replace("\n", "\\n");
        }
        int n = Math.min(result.length, MAX_RESULT_SHOWN / 2);
        return result.length + " bytes, hex: " + HexFormat.of().formatHex(result, 0, n)
                + (n < result.length ? "..." : "");
    }

    public static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static String relative(Instant t, Instant now) {
        Duration d = Duration.between(now, t);
        String amount = Human.duration(d.abs());
        return d.isNegative() ? "  (" + amount + " ago)" : "  (in " + amount + ")";
    }
}
