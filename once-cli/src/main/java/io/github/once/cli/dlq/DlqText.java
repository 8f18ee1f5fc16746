package io.github.once.cli.dlq;

import io.github.once.cli.ops.InspectCommand;
import io.github.once.cli.ops.Json;
import io.github.once.rabbitmq.DeadLetterQueue.DeadLetter;
import io.github.once.rabbitmq.OnceHeaders;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

/** How the dlq commands print dead letters. */
final class DlqText {
    private static final int BODY_SHOWN = 120;

    private DlqText() {
    }

    static void print(PrintWriter out, int n, DeadLetter letter) {
        out.println(n + ". message id  " + orNone(letter.messageId()));
        out.println("   reason      " + orNone(letter.reason()) + "  (attempts " + orNone(letter.header(
                OnceHeaders.ATTEMPTS)) + ", from queue " + orNone(letter.header(OnceHeaders.QUEUE)) + ")");
        if (letter.header(OnceHeaders.DETAIL) != null) {
            out.println("   detail      " + letter.header(OnceHeaders.DETAIL));
        }
        if (letter.header(OnceHeaders.ERROR) != null) {
            out.println("   error       " + letter.header(OnceHeaders.ERROR));
        }
        out.println("   published   exchange '" + orNone(letter.header(OnceHeaders.ORIGINAL_EXCHANGE))
                + "', routing key '" + orNone(letter.header(OnceHeaders.ORIGINAL_ROUTING_KEY)) + "'");
        String text = text(letter.body());
        out.println("   body        " + letter.body().length + " bytes" + (text == null ? ""
                : ": " + (text.length() > BODY_SHOWN ? text.substring(0, BODY_SHOWN) + "..." : text)
                        .replace("\n", "\\n")));
    }

    static String json(String deadLetterQueue, List<DeadLetter> letters, long more, Collection<String> notFound) {
        StringJoiner list = new StringJoiner(",", "[", "]");
        for (DeadLetter l : letters) {
            String text = text(l.body());
            list.add("{\"messageId\":" + nullable(l.messageId()) + ",\"reason\":" + nullable(l.reason())
                    + ",\"detail\":" + nullable(l.header(OnceHeaders.DETAIL))
                    + ",\"attempts\":" + nullable(l.header(OnceHeaders.ATTEMPTS))
                    + ",\"error\":" + nullable(l.header(OnceHeaders.ERROR))
                    + ",\"queue\":" + nullable(l.header(OnceHeaders.QUEUE))
                    + ",\"originalExchange\":" + nullable(l.header(OnceHeaders.ORIGINAL_EXCHANGE))
                    + ",\"originalRoutingKey\":" + nullable(l.header(OnceHeaders.ORIGINAL_ROUTING_KEY))
                    + ",\"bodyBytes\":" + l.body().length + ",\"bodyText\":" + nullable(text) + "}");
        }
        StringJoiner missing = new StringJoiner(",", "[", "]");
        notFound.forEach(id -> missing.add(Json.str(id)));
        return "{\"deadLetterQueue\":" + Json.str(deadLetterQueue) + ",\"count\":" + letters.size()
                + ",\"more\":" + more + ",\"messages\":" + list + ",\"notFound\":" + missing + "}";
    }

    private static String nullable(String s) {
        return s == null ? "null" : Json.str(s);
    }

    private static String orNone(String s) {
        return s == null ? "(none)" : s;
    }

    private static String text(byte[] body) {
        return InspectCommand.utf8(body);
    }
}
