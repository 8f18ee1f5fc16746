package io.github.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

/** The baseline: a plain manual-ack consumer that runs the effect and acks each message, with no guard at all. */
final class PlainConsumer implements Consumption {

    private final Channel channel;

    private PlainConsumer(Channel channel) {
        this.channel = channel;
    }

    static Consumption start(Connection connection, String queue, int prefetch, Meter meter) throws IOException {
        Channel channel = connection.createChannel();
        channel.basicQos(prefetch);
        channel.basicConsume(queue, false, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                       byte[] body) throws IOException {
                long delivered = meter.delivered(Integer.parseInt(properties.getMessageId()));
                meter.effect();
                channel.basicAck(envelope.getDeliveryTag(), false);
                meter.acked(delivered);
            }
        });
        return new PlainConsumer(channel);
    }

    @Override
    public void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("could not close the baseline's channel", e);
        }
    }
}
