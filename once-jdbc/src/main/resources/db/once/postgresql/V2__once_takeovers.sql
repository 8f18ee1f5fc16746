-- Once: takeovers in a row, for PostgreSQL 9.6 or later. Counts the claims that took a record over from a lease that lapsed
-- without a completion or a release (its owner most likely died in the handler); the executor dead-letters a key
-- taken over too often. A release sets it to -1 (given back), so the next claim counts 0 again.
-- Apply after V1__once_record.sql; a table without this column fails every claim with a message naming this file.
ALTER TABLE once_record ADD COLUMN IF NOT EXISTS takeovers INTEGER NOT NULL DEFAULT 0;
