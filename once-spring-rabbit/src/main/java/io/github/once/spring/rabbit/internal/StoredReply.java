package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.AMQP;

import io.github.once.spring.rabbit.Once;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A listener's reply as Once stores it: the body with the properties a caller's converter reads (content type,
 * encoding and the text headers such as {@code __TypeId__}), so a duplicate request gets the same reply.
 */
public record StoredReply(AMQP.BasicProperties properties, byte[] body) {
    private static final int VERSION = 1;

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeUTF(text(properties.getContentType()));
            out.writeUTF(text(properties.getContentEncoding()));
            Map<String, Object> headers = properties.getHeaders() == null ? Map.of() : properties.getHeaders();
            Map<String, String> kept = new LinkedHashMap<>();
            headers.forEach((name, value) -> {
                if (value instanceof CharSequence || value instanceof Number || value instanceof Boolean
                        || value instanceof com.rabbitmq.client.LongString) {
                    kept.put(name, value.toString());
                }
            });
            out.writeInt(kept.size());
            for (Map.Entry<String, String> e : kept.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
            out.writeInt(body.length);
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The reply's properties on top of {@code base} (the correlation id), and its body. */
    public static StoredReply decode(byte[] stored, AMQP.BasicProperties base) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            int version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored reply version " + version);
            }
            String contentType = in.readUTF();
            String contentEncoding = in.readUTF();
            int count = in.readInt();
            Map<String, Object> headers = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                headers.put(in.readUTF(), in.readUTF());
            }
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            AMQP.BasicProperties props = base.builder()
                    .contentType(contentType.isEmpty() ? null : contentType)
                    .contentEncoding(contentEncoding.isEmpty() ? null : contentEncoding)
                    .headers(headers.isEmpty() ? null : headers)
                    .build();
            return new StoredReply(props, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }
}
