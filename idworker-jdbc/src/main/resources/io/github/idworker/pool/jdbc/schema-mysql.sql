-- idworker ID pools, one row per entity; the table is the source of truth. MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.pool.table), replace idworker_id_pool with it
-- throughout; idworker's own initialize-schema does that itself.
-- None of the column names is a reserved word in MySQL, MariaDB, PostgreSQL or H2, so none is quoted.
-- reserved_to: the end of the last reservation, raised with current_offset by every reservation. A row whose
-- current_offset lies below it was moved back by hand, and nothing is reserved for it until current_offset is raised
-- again. A table created before reserved_to existed: ALTER TABLE idworker_id_pool ADD COLUMN reserved_to BIGINT, then
-- UPDATE idworker_id_pool SET reserved_to = current_offset WHERE reserved_to IS NULL (initialize-schema=always does both).
CREATE TABLE IF NOT EXISTS idworker_id_pool (
    entity_key        VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'entity key, letters, digits, _, - and .; case-sensitive, as in Redis keys',
    name              VARCHAR(128) NOT NULL COMMENT 'what the IDs number, for people',
    increasing_type   VARCHAR(16)  NOT NULL COMMENT 'MONOTONIC (in take order) or TREND (chunks shuffled)',
    start_offset      BIGINT       NOT NULL COMMENT 'first offset handed out; never reserved below',
    step              INT          NOT NULL COMMENT 'offsets per chunk: the unit of a reservation and of a TREND shuffle',
    current_offset    BIGINT       NOT NULL COMMENT 'last offset reserved (start_offset - 1 before any); only grows',
    reserved_to       BIGINT       NULL     COMMENT 'end of the last reservation, raised with current_offset; a current_offset below it is refused',
    max_per_request   INT          NOT NULL COMMENT 'most IDs one take may ask for',
    max_per_second    INT          NOT NULL COMMENT 'most IDs per second across all nodes',
    threshold_percent INT          NOT NULL COMMENT 'refill when the pool holds less than this percentage of max_pool_size',
    check_interval_ms BIGINT       NOT NULL COMMENT 'how often each node checks the pool level, in milliseconds',
    max_pool_size     BIGINT       NOT NULL COMMENT 'most IDs the Redis list ever holds',
    max_gap           INT          NOT NULL COMMENT 'MONOTONIC only: up to this many offsets skipped at random after each ID; 0 for none',
    environment       INT          NULL     COMMENT 'e of e/E: offset n is handed out as ID n * E + e; pinned on first use',
    environments      INT          NULL     COMMENT 'E of e/E; pinned with environment, never changes afterwards',
    created_at        DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    update_time       DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) COMMENT 'last reservation',
    PRIMARY KEY (entity_key)
) ENGINE = InnoDB;
