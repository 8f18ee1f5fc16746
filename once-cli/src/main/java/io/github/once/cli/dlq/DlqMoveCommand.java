package io.github.once.cli.dlq;

import io.github.once.cli.ExitCodes;
import io.github.once.cli.ops.Human;
import io.github.once.rabbitmq.DeadLetterQueue.DeadLetter;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code once dlq move QUEUE --message-id ID | --all}: dead letters back to the work queue. */
@Command(name = "move", mixinStandardHelpOptions = true,
        description = "Moves chosen dead letters (by message id, or all of the first --max) back to QUEUE, oldest "
                + "first: each copy is confirmed by the broker before its dead letter is acked. The copy loses the "
                + "dead-letter headers, so the consumer gives it a fresh set of attempts. Exit status 1 when a "
                + "named message id was not among the dead letters read.")
public final class DlqMoveCommand extends DlqSubcommand {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Choice choice;

    static final class Choice {
        @Option(names = "--message-id", paramLabel = "ID", required = true,
                description = "Move the dead letter with this message_id (repeatable).")
        List<String> ids;

        @Option(names = "--all", required = true, description = "Move every dead letter read.")
        boolean all;
    }

    @Override
    int run(DlqSession dlq, PrintWriter out) {
        Set<String> missing = choice.all ? new LinkedHashSet<>() : new LinkedHashSet<>(choice.ids);
        List<DeadLetter> moved = new ArrayList<>();
        for (DeadLetter letter : dlq.take(options.max)) {
            if (choice.all || missing.remove(letter.messageId()) || isRepeat(moved, letter)) {
                dlq.moveBack(letter);
                moved.add(letter);
            }
        }
        if (options.json) {
            out.println(DlqText.json(dlq.deadLetterQueue(), moved, dlq.remaining(), missing));
        } else {
            out.println("moved " + Human.count(moved.size(), "dead letter") + " from " + dlq.deadLetterQueue() + " to "
                    + options.queue + " on " + dlq.where());
            for (int i = 0; i < moved.size(); i++) {
                DlqText.print(out, i + 1, moved.get(i));
            }
            if (!missing.isEmpty()) {
                out.println("not found among the first " + options.max + " dead letters: "
                        + String.join(", ", missing));
            }
        }
        return missing.isEmpty() ? ExitCodes.OK : 1;
    }

    /** A named id seen twice (the same message dead-lettered twice): move every copy. */
    private boolean isRepeat(List<DeadLetter> moved, DeadLetter letter) {
        return !choice.all && letter.messageId() != null && choice.ids.contains(letter.messageId())
                && moved.stream().anyMatch(m -> letter.messageId().equals(m.messageId()));
    }
}
