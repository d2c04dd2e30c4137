-- idworker segment ranges, one row per business tag. H2 (any compatibility mode).
CREATE TABLE IF NOT EXISTS ${table} (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (biz_tag)
)
