-- idworker serial rules, one row per rule; the table is the source of truth. MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.serial.table), replace idworker_serial_rule with it
-- throughout; idworker's own initialize-schema does that itself.
CREATE TABLE IF NOT EXISTS idworker_serial_rule (
    rule_name    VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'rule name, letters, digits, _ and -; case-sensitive',
    prefix       VARCHAR(32)  NOT NULL COMMENT 'text before the date; shape, never changes',
    date_pattern VARCHAR(16)  NOT NULL COMMENT 'yyyy, MM and dd, or empty; shape, never changes',
    width        INT          NOT NULL COMMENT 'digits of the zero-padded number; shape, never changes',
    start_number BIGINT       NOT NULL COMMENT 'first number of every period',
    max_number   BIGINT       NOT NULL COMMENT 'last number of every period',
    reset_period VARCHAR(8)   NOT NULL COMMENT 'never, daily, monthly or yearly; shape, never changes',
    zone_id      VARCHAR(64)  NOT NULL COMMENT 'IANA zone of the date and the period; shape, never changes',
    critical     INT          NOT NULL COMMENT 'stock level at or below which a take starts a refill',
    min_batch    INT          NOT NULL COMMENT 'smallest refill',
    max_batch    INT          NOT NULL COMMENT 'largest refill and largest batch of one call',
    shape        VARCHAR(200) NULL     COMMENT 'prefix, date-pattern, width, reset and zone when first used; an edit of those is refused',
    created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (rule_name)
) ENGINE = InnoDB;

-- One row per (rule, period): every number up to high_water has been reserved, so none below is issued again.
-- reserved_to: the end of the last reservation, raised with high_water by every reservation. A row whose high_water
-- lies below it was moved back by hand, and no number of that period is reserved until high_water is raised again.
-- A table created before reserved_to existed: ALTER TABLE idworker_serial_rule_period ADD COLUMN reserved_to BIGINT,
-- then UPDATE idworker_serial_rule_period SET reserved_to = high_water WHERE reserved_to IS NULL (initialize-schema=always
-- does both).
CREATE TABLE IF NOT EXISTS idworker_serial_rule_period (
    rule_name   VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'case-sensitive, as in Redis keys',
    period      VARCHAR(8)   CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT '20261123, 202611, 2026 or all',
    high_water  BIGINT       NOT NULL COMMENT 'last number reserved; only grows, never past the rule max',
    reserved_to BIGINT       NULL     COMMENT 'end of the last reservation; a high_water below it is refused',
    update_time DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (rule_name, period)
) ENGINE = InnoDB;
