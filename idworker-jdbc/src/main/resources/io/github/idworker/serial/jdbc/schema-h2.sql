-- idworker serial rules, one row per rule; the table is the source of truth. H2 (any compatibility mode).
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.serial.table), replace idworker_serial_rule with it
-- throughout; idworker's own initialize-schema does that itself.
-- prefix, date_pattern, width, reset_period and zone_id are the rule's shape: they never change.
CREATE TABLE IF NOT EXISTS idworker_serial_rule (
    rule_name    VARCHAR(64)  NOT NULL,
    prefix       VARCHAR(32)  NOT NULL,
    date_pattern VARCHAR(16)  NOT NULL,
    width        INT          NOT NULL,
    start_number BIGINT       NOT NULL,
    max_number   BIGINT       NOT NULL,
    reset_period VARCHAR(8)   NOT NULL,
    zone_id      VARCHAR(64)  NOT NULL,
    critical     INT          NOT NULL,
    min_batch    INT          NOT NULL,
    max_batch    INT          NOT NULL,
    shape        VARCHAR(200),
    created_at   TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (rule_name)
);

-- One row per (rule, period): every number up to high_water has been reserved, so none below is issued again.
-- reserved_to: the end of the last reservation, raised with high_water by every reservation. A row whose high_water
-- lies below it was moved back by hand, and no number of that period is reserved until high_water is raised again.
-- A table created before reserved_to existed: ALTER TABLE idworker_serial_rule_period ADD COLUMN reserved_to BIGINT,
-- then UPDATE idworker_serial_rule_period SET reserved_to = high_water WHERE reserved_to IS NULL (initialize-schema=always
-- does both).
CREATE TABLE IF NOT EXISTS idworker_serial_rule_period (
    rule_name   VARCHAR(64)  NOT NULL,
    period      VARCHAR(8)   NOT NULL,
    high_water  BIGINT       NOT NULL,
    reserved_to BIGINT,
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (rule_name, period)
);
