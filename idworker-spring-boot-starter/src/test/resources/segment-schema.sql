-- The segment table created by spring.sql.init instead of idworker (H2), for SegmentIdGeneratorsConfigTest.
CREATE TABLE IF NOT EXISTS app_segment (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    high_water  BIGINT,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (biz_tag)
);
