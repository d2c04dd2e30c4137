-- idworker worker-id leases, one row per (namespace, slot). MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.jdbc.table), replace idworker_worker_slot with it
-- throughout; idworker's own initialize-schema does that itself.
CREATE TABLE IF NOT EXISTS idworker_worker_slot (
    ns          VARCHAR(64)  NOT NULL COMMENT 'namespace (id space)',
    slot_id     INT          NOT NULL COMMENT 'worker id',
    owner_token VARCHAR(64)  NULL     COMMENT 'random token of the holder; NULL when free',
    expires_at  BIGINT       NOT NULL COMMENT 'lease end, centre clock, epoch ms',
    high_water  BIGINT       NOT NULL COMMENT 'no id from this slot has a later timestamp (worker clock, epoch ms)',
    host_name   VARCHAR(255) NULL,
    pid         BIGINT       NULL,
    started_at  BIGINT       NULL,
    PRIMARY KEY (ns, slot_id)
) ENGINE = InnoDB;

-- One row per namespace: a slot row missing below slots_created was lost and comes back with a guarded floor.
CREATE TABLE IF NOT EXISTS idworker_worker_slot_ns (
    ns            VARCHAR(64)  NOT NULL COMMENT 'namespace (id space)',
    layout        VARCHAR(128) NOT NULL COMMENT 'epoch and bit widths of the first borrow; never changes',
    guard_ms      BIGINT       NOT NULL COMMENT 'largest ttl + max-skew a borrower asked for, ms',
    slots_created INT          NOT NULL COMMENT 'slot ids 0 .. slots_created - 1 have had a row',
    created_at    BIGINT       NOT NULL COMMENT 'centre clock, epoch ms',
    PRIMARY KEY (ns)
) ENGINE = InnoDB;
