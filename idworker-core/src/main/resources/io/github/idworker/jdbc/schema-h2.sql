-- idworker worker-id leases, one row per (namespace, slot). H2 (any compatibility mode).
CREATE TABLE IF NOT EXISTS ${table} (
    ns          VARCHAR(64)  NOT NULL,
    slot_id     INT          NOT NULL,
    owner_token VARCHAR(64),
    expires_at  BIGINT       NOT NULL,
    high_water  BIGINT       NOT NULL,
    host_name   VARCHAR(255),
    pid         BIGINT,
    started_at  BIGINT,
    PRIMARY KEY (ns, slot_id)
)
