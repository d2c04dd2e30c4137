-- idworker worker-id leases, one row per (namespace, slot). MySQL 8 / MariaDB 10.5+.
CREATE TABLE IF NOT EXISTS ${table} (
    ns          VARCHAR(64)  NOT NULL COMMENT 'namespace (id space)',
    slot_id     INT          NOT NULL COMMENT 'worker id',
    owner_token VARCHAR(64)  NULL     COMMENT 'random token of the holder; NULL when free',
    expires_at  BIGINT       NOT NULL COMMENT 'lease end, centre clock, epoch ms',
    high_water  BIGINT       NOT NULL COMMENT 'no id from this slot has a later timestamp (worker clock, epoch ms)',
    host_name   VARCHAR(255) NULL,
    pid         BIGINT       NULL,
    started_at  BIGINT       NULL,
    PRIMARY KEY (ns, slot_id)
) ENGINE = InnoDB
