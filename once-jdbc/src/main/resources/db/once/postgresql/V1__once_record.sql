-- Once: the idempotency record table for PostgreSQL (9.5 or later).
-- Drops into a Flyway or Liquibase folder as it is; to use another table name, replace once_record.
CREATE TABLE IF NOT EXISTS once_record (
    namespace    VARCHAR(64)  NOT NULL,
    record_key   VARCHAR(200) COLLATE "C" NOT NULL,
    state        VARCHAR(16)  NOT NULL,
    token        BIGINT       NOT NULL,
    lease_until  TIMESTAMPTZ(6) NOT NULL,
    expires_at   TIMESTAMPTZ(6) NOT NULL,
    fingerprint  VARCHAR(64),
    result       BYTEA,
    claim_id     BIGINT,
    created_at   TIMESTAMPTZ(6) NOT NULL,
    completed_at TIMESTAMPTZ(6),
    CONSTRAINT once_record_pk PRIMARY KEY (namespace, record_key)
);
CREATE INDEX IF NOT EXISTS once_record_expires_idx ON once_record (expires_at);
