-- Once: the idempotency record table for MariaDB 10.5 or later (InnoDB).
-- Keys are VARBINARY so ids that differ only in case or trailing spaces stay distinct and any UTF-8 fits.
-- Times are DATETIME(6) in UTC (written with UTC_TIMESTAMP(6)), independent of server and client time zones.
-- Drops into a Flyway or Liquibase folder as it is; to use another table name, replace once_record.
CREATE TABLE IF NOT EXISTS once_record (
    namespace    VARBINARY(64)  NOT NULL,
    record_key   VARBINARY(200) NOT NULL,
    state        VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    token        BIGINT         NOT NULL,
    lease_until  DATETIME(6)    NOT NULL,
    expires_at   DATETIME(6)    NOT NULL,
    fingerprint  VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
    result       LONGBLOB       NULL,
    claim_id     BIGINT         NULL,
    created_at   DATETIME(6)    NOT NULL,
    completed_at DATETIME(6)    NULL,
    PRIMARY KEY (namespace, record_key),
    KEY once_record_expires_idx (expires_at)
) ENGINE = InnoDB;
