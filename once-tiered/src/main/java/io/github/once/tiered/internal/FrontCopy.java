package io.github.once.tiered.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * A completed record of the store of record as the front store keeps it: the whole record (token, fingerprint,
 * instants, result) encoded as the result of the front's own record of the same key, so any store can be a front.
 */
public final class FrontCopy {

    private static final byte FORMAT = 1;

    private FrontCopy() {
    }

    public static byte[] encode(IdempotencyRecord record) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (record.result() == null ? 0 : record.result().length));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeLong(record.token());
            writeInstant(out, record.leaseUntil());
            writeInstant(out, record.expiresAt());
            out.writeBoolean(record.fingerprint() != null);
            if (record.fingerprint() != null) {
                out.writeUTF(record.fingerprint());
            }
            byte[] result = record.result();
            out.writeInt(result == null ? -1 : result.length);
            if (result != null) {
                out.write(result);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The record, or null when {@code bytes} are not a front copy of this format. */
    public static IdempotencyRecord decode(IdempotencyKey key, byte[] bytes) {
        if (bytes == null || bytes.length == 0 || bytes[0] != FORMAT) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            in.readByte();
            long token = in.readLong();
            Instant completedAt = readInstant(in);
            Instant expiresAt = readInstant(in);
            String fingerprint = in.readBoolean() ? in.readUTF() : null;
            int length = in.readInt();
            byte[] result = null;
            if (length >= 0) {
                result = new byte[length];
                in.readFully(result);
            }
            return new IdempotencyRecord(key, RecordState.COMPLETED, token, completedAt, fingerprint, result, expiresAt);
        } catch (IOException | RuntimeException e) {
            return null; // not ours, or cut short: the store of record answers instead
        }
    }

    private static void writeInstant(DataOutputStream out, Instant instant) throws IOException {
        out.writeLong(instant.getEpochSecond());
        out.writeInt(instant.getNano());
    }

    private static Instant readInstant(DataInputStream in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }
}
