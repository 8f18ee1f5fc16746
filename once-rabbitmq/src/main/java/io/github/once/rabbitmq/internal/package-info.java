/** Not an API: the consumer, the publisher and the container hooks' implementation. It is not exported. */
package io.github.once.rabbitmq.internal;
