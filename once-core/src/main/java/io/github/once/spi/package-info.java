/** For store authors: the store SPI every store implements and the value types it speaks in. Users need it only to pick a store. */
package io.github.once.spi;
