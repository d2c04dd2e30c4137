-- idworker's lease table (H2; the DDL for MySQL and PostgreSQL ships in idworker-core under io/github/idworker/jdbc/).
-- Spring Boot runs this file on the embedded database at startup.
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
