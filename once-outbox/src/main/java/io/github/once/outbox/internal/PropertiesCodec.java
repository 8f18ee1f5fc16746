package io.github.once.outbox.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.ContentHeaderPropertyWriter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Stores message properties in AMQP 0-9-1's own content-header encoding, the bytes the client sends to the broker:
 * every property and every header value type the broker accepts comes back exactly as it was written.
 */
public final class PropertiesCodec {

    private PropertiesCodec() {
    }

    public static byte[] encode(AMQP.BasicProperties properties) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeShort(0); // class weight, unused
            out.writeLong(0); // body size, not stored here
            properties.writePropertiesTo(new ContentHeaderPropertyWriter(out));
        } catch (IOException e) {
            throw new UncheckedIOException("could not encode message properties " + properties, e);
        }
        return bytes.toByteArray();
    }

    public static AMQP.BasicProperties decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            return new AMQP.BasicProperties(in);
        } catch (IOException e) {
            throw new UncheckedIOException("could not decode stored message properties (" + encoded.length
                    + " bytes)", e);
        }
    }
}
