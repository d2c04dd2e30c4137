-- The pool table as applications created it before reserved_to existed (H2), for IdPoolsConfigTest.
CREATE TABLE IF NOT EXISTS old_id_pool (
    entity_key        VARCHAR(64)  NOT NULL,
    name              VARCHAR(128) NOT NULL,
    increasing_type   VARCHAR(16)  NOT NULL,
    start_offset      BIGINT       NOT NULL,
    step              INT          NOT NULL,
    current_offset    BIGINT       NOT NULL,
    max_per_request   INT          NOT NULL,
    max_per_second    INT          NOT NULL,
    threshold_percent INT          NOT NULL,
    check_interval_ms BIGINT       NOT NULL,
    max_pool_size     BIGINT       NOT NULL,
    max_gap           INT          NOT NULL,
    environment       INT,
    environments      INT,
    created_at        TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time       TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (entity_key)
);
