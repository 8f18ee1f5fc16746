/** The JDBC store (PostgreSQL, MariaDB, H2), its transactional mode, the purger and the state machine. */
module io.github.once.jdbc {
    requires transitive io.github.once.core;
    requires org.slf4j;

    exports io.github.once.jdbc;
}
