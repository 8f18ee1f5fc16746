/** For users: the JDBC store for PostgreSQL, MariaDB/MySQL and H2, its transactional mode and the purger; statement-level code stays package-private. */
package io.github.once.jdbc;
