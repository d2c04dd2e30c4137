-- The pool table created by spring.sql.init instead of idworker (H2), for IdPoolsConfigTest.
-- None of the column names is a reserved word in H2, PostgreSQL, MySQL or MariaDB, so none is quoted.
CREATE TABLE IF NOT EXISTS app_id_pool (
    entity_key        VARCHAR(64)  NOT NULL, -- entity key, letters, digits, _, - and .; case-sensitive, as in Redis keys
    name              VARCHAR(128) NOT NULL, -- what the IDs number, for people
    increasing_type   VARCHAR(16)  NOT NULL, -- MONOTONIC (in take order) or TREND (chunks shuffled)
    start_offset      BIGINT       NOT NULL, -- first offset handed out; never reserved below
    step              INT          NOT NULL, -- offsets per chunk: the unit of a reservation and of a TREND shuffle
    current_offset    BIGINT       NOT NULL, -- last offset reserved (start_offset - 1 before any); only grows
    reserved_to       BIGINT,                -- end of the last reservation; a current_offset below it is refused
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
