package io.github.once.cli.demo;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The seed's IdempotentConsumer, step for step: take the ID (property, else body {@code message_id}, else
 * {@code id}); ack and drop a message without one; ack if processed; take a 30 s lock, or return with neither
 * ack nor nack when it is taken; process; mark processed (24 h) and release the lock; ack. On failure release
 * the lock and nack with requeue.
 */
final class CheckThenLockLogic implements TrapLogic {
    private static final Pattern BODY_MESSAGE_ID = Pattern.compile("\"message_id\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern BODY_ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

    private final CheckThenLockGuard guard;

    CheckThenLockLogic(CheckThenLockGuard guard) {
        this.guard = guard;
    }

    @Override
    public void handle(RawDelivery d) throws Exception {
        Cell cell = d.cell();
        String messageId = extractMessageId(d);
        if (messageId.isEmpty()) {
            // The seed logs "Message missing ID", acks, and returns.
            d.ack();
            cell.note(CellEvent.DROPPED_MISSING_ID);
            return;
        }
        if (guard.isProcessed(messageId)) {
            d.ack();
            cell.note(CellEvent.SKIPPED_PROCESSED);
            cell.secondDecided(d.process());
            return;
        }
        cell.note(CellEvent.CHECKED_NOT_PROCESSED);
        cell.secondDecided(d.process());
        cell.betweenCheckAndLock(d.process());
        if (!guard.acquireLock(messageId)) {
            // "Message being processed by another consumer": no ack, no nack.
            cell.note(CellEvent.LEFT_UNACKED);
            return;
        }
        try {
            cell.work(d.process(), d.orderId(), null);
            guard.markAsProcessed(messageId, "true");
            d.ack();
        } catch (Exception e) {
            guard.releaseLock(messageId);
            cell.note(CellEvent.NACK_REQUEUE);
            d.nack(true);
        }
    }

    private static String extractMessageId(RawDelivery d) {
        String id = d.properties().getMessageId();
        if (id != null && !id.isEmpty()) {
            return id;
        }
        String body = new String(d.body(), StandardCharsets.UTF_8);
        // The seed's $body['message_id'] ?? $body['id'] ?? ''
        for (Pattern field : new Pattern[] {BODY_MESSAGE_ID, BODY_ID}) {
            Matcher m = field.matcher(body);
            if (m.find()) {
                return m.group(1);
            }
        }
        return "";
    }
}
