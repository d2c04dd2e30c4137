-- idworker worker-id leases, one row per (namespace, slot). H2 (any compatibility mode).
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.jdbc.table), replace idworker_worker_slot with it
-- throughout; idworker's own initialize-schema does that itself.
CREATE TABLE IF NOT EXISTS idworker_worker_slot (
    ns          VARCHAR(64)  NOT NULL,
    slot_id     INT          NOT NULL,
    owner_token VARCHAR(64),
    expires_at  BIGINT       NOT NULL,
    high_water  BIGINT       NOT NULL,
    host_name   VARCHAR(255),
    pid         BIGINT,
    started_at  BIGINT,
    PRIMARY KEY (ns, slot_id)
);

-- One row per namespace: its pinned layout, the largest loss guard (ttl + max-skew) a borrower asked for, and how
-- many slot ids have had a row, so a missing row below that count is known to be lost.
CREATE TABLE IF NOT EXISTS idworker_worker_slot_ns (
    ns            VARCHAR(64)  NOT NULL,
    layout        VARCHAR(128) NOT NULL,
    guard_ms      BIGINT       NOT NULL,
    slots_created INT          NOT NULL,
    created_at    BIGINT       NOT NULL,
    PRIMARY KEY (ns)
);
