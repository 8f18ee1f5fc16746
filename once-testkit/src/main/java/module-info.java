/** The contract every store passes, for authors of stores to run against their own. */
module io.github.once.testkit {
    requires transitive io.github.once.core;
    requires transitive org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires org.assertj.core;
    requires awaitility;

    exports io.github.once.testkit;
    opens io.github.once.testkit to org.junit.platform.commons;
}
