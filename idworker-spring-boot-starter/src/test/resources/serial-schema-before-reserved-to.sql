-- The serial tables as applications created them before reserved_to existed (H2), for SerialStoreConfigTest.
-- One rule and one period, as an older version left them: numbers 1 to 40 of 20261123 reserved.
CREATE TABLE IF NOT EXISTS old_serial (
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
CREATE TABLE IF NOT EXISTS old_serial_period (
    rule_name   VARCHAR(64)  NOT NULL,
    period      VARCHAR(8)   NOT NULL,
    high_water  BIGINT       NOT NULL,
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (rule_name, period)
);
INSERT INTO old_serial_period (rule_name, period, high_water) VALUES ('order', '20261123', 40);
