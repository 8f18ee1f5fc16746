/** The tiered store: a front store answering duplicates over a store of record. */
module io.github.once.tiered {
    requires transitive io.github.once.core;
    requires org.slf4j;

    exports io.github.once.tiered;
}
