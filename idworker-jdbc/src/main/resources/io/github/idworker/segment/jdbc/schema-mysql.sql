-- idworker segment ranges, one row per business tag. MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.segment.table), replace idworker_segment with it
-- throughout; idworker's own initialize-schema does that itself.
-- high_water: the end of the last range handed out, raised with max_id by every allocation. A row whose max_id lies
-- below it was moved back by hand, and no range of its tag is handed out until max_id is raised again.
-- A table created before high_water existed: ALTER TABLE idworker_segment ADD COLUMN high_water BIGINT, then
-- UPDATE idworker_segment SET high_water = max_id WHERE high_water IS NULL (initialize-schema=always does both).
CREATE TABLE IF NOT EXISTS idworker_segment (
    biz_tag     VARCHAR(128) NOT NULL COMMENT 'business tag, e.g. order',
    max_id      BIGINT       NOT NULL COMMENT 'every number up to here has been handed out in some range',
    high_water  BIGINT       NULL     COMMENT 'end of the last range handed out; a max_id below it is refused',
    step        INT          NOT NULL COMMENT 'step the tag was registered with',
    description VARCHAR(256) NULL,
    update_time DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) COMMENT 'last allocation, database clock',
    PRIMARY KEY (biz_tag)
) ENGINE = InnoDB;
