-- idworker segment ranges, one row per business tag. MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.segment.table), replace idworker_segment with it
-- throughout; idworker's own initialize-schema does that itself.
CREATE TABLE IF NOT EXISTS idworker_segment (
    biz_tag     VARCHAR(128) NOT NULL COMMENT 'business tag, e.g. order',
    max_id      BIGINT       NOT NULL COMMENT 'every number up to here has been handed out in some range',
    step        INT          NOT NULL COMMENT 'step the tag was registered with',
    description VARCHAR(256) NULL,
    update_time DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) COMMENT 'last allocation, database clock',
    PRIMARY KEY (biz_tag)
) ENGINE = InnoDB;
