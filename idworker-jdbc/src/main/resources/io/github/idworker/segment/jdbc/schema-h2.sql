-- idworker segment ranges, one row per business tag. H2 (any compatibility mode).
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.segment.table), replace idworker_segment with it
-- throughout; idworker's own initialize-schema does that itself.
-- high_water: the end of the last range handed out, raised with max_id by every allocation. A row whose max_id lies
-- below it was moved back by hand, and no range of its tag is handed out until max_id is raised again.
-- A table created before high_water existed: ALTER TABLE idworker_segment ADD COLUMN high_water BIGINT, then
-- UPDATE idworker_segment SET high_water = max_id WHERE high_water IS NULL (initialize-schema=always does both).
CREATE TABLE IF NOT EXISTS idworker_segment (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    high_water  BIGINT,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (biz_tag)
);
