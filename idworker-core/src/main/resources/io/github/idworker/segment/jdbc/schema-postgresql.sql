-- idworker segment ranges, one row per business tag. PostgreSQL 12+.
CREATE TABLE IF NOT EXISTS ${table} (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (biz_tag)
)
