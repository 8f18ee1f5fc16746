package io.github.once.cli.demo;

import com.rabbitmq.client.AMQP;
import java.io.IOException;

/** One delivery as a plain amqp-client consumer sees it, with the cell and process it belongs to. */
final class RawDelivery {
    private final RawProcess process;
    private final long tag;
    private final AMQP.BasicProperties properties;
    private final byte[] body;

    RawDelivery(RawProcess process, long tag, AMQP.BasicProperties properties, byte[] body) {
        this.process = process;
        this.tag = tag;
        this.properties = properties;
        this.body = body;
    }

    RawProcess process() {
        return process;
    }

    Cell cell() {
        return process.cell();
    }

    AMQP.BasicProperties properties() {
        return properties;
    }

    byte[] body() {
        return body;
    }

    String orderId() {
        return Order.orderId(body).orElse("unknown");
    }

    /** basic.ack; throws like the client does when the channel is gone. */
    void ack() throws IOException {
        process.channel().basicAck(tag, false);
        process.settled();
    }

    /** basic.nack; throws like the client does when the channel is gone. */
    void nack(boolean requeue) throws IOException {
        process.channel().basicNack(tag, false, requeue);
        process.settled();
    }
}
