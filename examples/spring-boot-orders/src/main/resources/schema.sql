-- The orders the listener stores. No unique key on order_id, on purpose: Once alone keeps a re-delivered order
-- from being stored twice, and the example's test counts the rows to prove it.
CREATE TABLE IF NOT EXISTS shop_order (
    id           BIGSERIAL PRIMARY KEY,
    order_id     TEXT   NOT NULL,
    sku          TEXT   NOT NULL,
    quantity     INT    NOT NULL,
    amount_cents BIGINT NOT NULL,
    charge_id    TEXT   NOT NULL,
    stored_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
