-- The serial tables created by spring.sql.init instead of idworker (H2), for SerialStoreConfigTest.
CREATE TABLE IF NOT EXISTS app_serial_rule (
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
CREATE TABLE IF NOT EXISTS app_serial_rule_period (
    rule_name   VARCHAR(64)  NOT NULL,
    period      VARCHAR(8)   NOT NULL,
    high_water  BIGINT       NOT NULL,
    reserved_to BIGINT,
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (rule_name, period)
);
