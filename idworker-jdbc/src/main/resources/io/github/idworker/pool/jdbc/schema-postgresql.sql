-- idworker ID pools, one row per entity; the table is the source of truth. PostgreSQL 12+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.pool.table), replace idworker_id_pool with it
-- throughout; idworker's own initialize-schema does that itself.
-- None of the column names is a reserved word in PostgreSQL, H2, MySQL or MariaDB, so none is quoted.
-- reserved_to: the end of the last reservation, raised with current_offset by every reservation. A row whose
-- current_offset lies below it was moved back by hand, and nothing is reserved for it until current_offset is raised
-- again. A table created before reserved_to existed: ALTER TABLE idworker_id_pool ADD COLUMN reserved_to BIGINT, then
-- UPDATE idworker_id_pool SET reserved_to = current_offset WHERE reserved_to IS NULL (initialize-schema=always does both).
CREATE TABLE IF NOT EXISTS idworker_id_pool (
    entity_key        VARCHAR(64)  NOT NULL, -- entity key, letters, digits, _, - and .; case-sensitive, as in Redis keys
    name              VARCHAR(128) NOT NULL, -- what the IDs number, for people
    increasing_type   VARCHAR(16)  NOT NULL, -- MONOTONIC (in take order) or TREND (chunks shuffled)
    start_offset      BIGINT       NOT NULL, -- first offset handed out; never reserved below
    step              INT          NOT NULL, -- offsets per chunk: the unit of a reservation and of a TREND shuffle
    current_offset    BIGINT       NOT NULL, -- last offset reserved (start_offset - 1 before any); only grows
    reserved_to       BIGINT,                -- end of the last reservation, raised with current_offset; a current_offset below it is refused
    max_per_request   INT          NOT NULL, -- most IDs one take may ask for
    max_per_second    INT          NOT NULL, -- most IDs per second across all nodes
    threshold_percent INT          NOT NULL, -- refill when the pool holds less than this percentage of max_pool_size
    check_interval_ms BIGINT       NOT NULL, -- how often each node checks the pool level, in milliseconds
    max_pool_size     BIGINT       NOT NULL, -- most IDs the Redis list ever holds
    max_gap           INT          NOT NULL, -- MONOTONIC only: up to this many offsets skipped at random after each ID
    environment       INT,                   -- e of e/E: offset n is handed out as ID n * E + e; pinned on first use
    environments      INT,                   -- E of e/E; pinned with environment, never changes afterwards
    created_at        TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time       TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL, -- last reservation
    PRIMARY KEY (entity_key)
);
