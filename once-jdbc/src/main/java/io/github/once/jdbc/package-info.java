/**
 * For users: the JDBC store for PostgreSQL, MariaDB and H2 ({@link io.github.once.jdbc.JdbcIdempotencyStore}, which
 * also runs the transactional mode), its purger and the state machine for business tables.
 */
package io.github.once.jdbc;
