/** Once's core: keys, the executor, outcomes and the in-memory store for users; the store SPI for store authors. */
module io.github.once.core {
    requires transitive java.sql;
    requires org.slf4j;
    requires static micrometer.observation;
    requires static micrometer.commons;

    exports io.github.once;
    exports io.github.once.spi;
}
