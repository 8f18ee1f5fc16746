-- Once: the idempotency record table for H2 2.x (tests, demos, embedded use).
-- Drops into a Flyway or Liquibase folder as it is; to use another table name, replace once_record.
CREATE TABLE IF NOT EXISTS once_record (
    namespace    VARCHAR(64)  NOT NULL,
    record_key   VARCHAR(200) NOT NULL,
    state        VARCHAR(16)  NOT NULL,
    token        BIGINT       NOT NULL,
    lease_until  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    expires_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    fingerprint  VARCHAR(64),
    result       VARBINARY,
    claim_id     BIGINT,
    created_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    completed_at TIMESTAMP(6) WITH TIME ZONE,
    CONSTRAINT once_record_pk PRIMARY KEY (namespace, record_key)
);
CREATE INDEX IF NOT EXISTS once_record_expires_idx ON once_record (expires_at);
