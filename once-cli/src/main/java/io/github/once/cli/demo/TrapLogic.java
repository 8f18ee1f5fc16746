package io.github.once.cli.demo;

/** The consumer code of one trap row, written in the seed's shape on the plain AMQP client. */
interface TrapLogic {
    void handle(RawDelivery delivery) throws Exception;
}
