-- The segment table as applications created it before high_water existed (H2), for SegmentIdGeneratorsConfigTest.
-- One row, as an older version left it.
CREATE TABLE IF NOT EXISTS old_segment (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL,
    step        INT          NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    PRIMARY KEY (biz_tag)
);
INSERT INTO old_segment (biz_tag, max_id, step) VALUES ('order', 5000, 100);

