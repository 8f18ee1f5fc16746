package io.github.once.cli.dlq;

import io.github.once.cli.ExitCodes;
import io.github.once.cli.ops.Human;
import io.github.once.rabbitmq.DeadLetterQueue.DeadLetter;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code once dlq list QUEUE}: the dead letters, oldest first, left where they are. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "Lists the dead letters of QUEUE (oldest first) with their reason, detail, attempts and last error. "
                + "Every message goes back to its place in the dead-letter queue.")
public final class DlqListCommand extends DlqSubcommand {

    @Override
    int run(DlqSession dlq, PrintWriter out) {
        List<DeadLetter> letters = dlq.take(options.max);
        if (options.json) {
            out.println(DlqText.json(dlq.deadLetterQueue(), letters, dlq.remaining(), List.of()));
        } else {
            out.println(Human.count(letters.size(), "dead letter") + " in " + dlq.deadLetterQueue() + " on " + dlq.where()
                    + (dlq.remaining() > 0 ? " (and " + dlq.remaining() + " more: raise --max)" : ""));
            for (int i = 0; i < letters.size(); i++) {
                DlqText.print(out, i + 1, letters.get(i));
            }
        }
        return ExitCodes.OK;
    }
}
