-- Once: the outbox table for MariaDB 10.6 or later (InnoDB; the relay claims rows with FOR UPDATE SKIP LOCKED).
-- Rows are written by Outbox.write in the application's transaction and published by OutboxRelay.
-- Names compare as bytes (utf8mb4_bin), as RabbitMQ compares them. Times are DATETIME(6) in UTC.
-- Drops into a Flyway or Liquibase folder beside V1__once_record.sql; to use another table name, replace
-- once_outbox (the index names follow it).
CREATE TABLE IF NOT EXISTS once_outbox (
    id            BIGINT NOT NULL AUTO_INCREMENT,
    message_id    VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    exchange_name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    routing_key   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    properties    LONGBLOB     NOT NULL,
    body          LONGBLOB     NOT NULL,
    aggregate_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    state         VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    attempts      INT          NOT NULL,
    available_at  DATETIME(6)  NOT NULL,
    lease_owner   VARCHAR(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    lease_until   DATETIME(6)  NULL,
    created_at    DATETIME(6)  NOT NULL,
    sent_at       DATETIME(6)  NULL,
    last_error    VARCHAR(1000) CHARACTER SET utf8mb4 NULL,
    PRIMARY KEY (id),
    KEY once_outbox_state_idx (state, id),
    KEY once_outbox_aggregate_idx (aggregate_key, id),
    KEY once_outbox_sent_idx (state, sent_at)
) ENGINE = InnoDB;
