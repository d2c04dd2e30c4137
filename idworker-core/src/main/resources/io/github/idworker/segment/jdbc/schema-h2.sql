-- idworker segment ranges, one row per business tag. H2 (any compatibility mode).
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.segment.table), replace idworker_segment with it
-- throughout; idworker's own initialize-schema does that itself.
CREATE TABLE IF NOT EXISTS idworker_segment (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (biz_tag)
);
