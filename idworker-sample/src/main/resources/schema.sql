-- idworker's lease tables, the same as idworker's DDL for H2, MySQL/MariaDB and PostgreSQL (in idworker-core under
-- io/github/idworker/jdbc/); plain types only, so this file runs on all three. Spring Boot runs it on the embedded
-- database at startup; on a database of your own, run it (or idworker's DDL) once.

-- one row per (namespace, slot): who holds the worker id, until when, and the high-water its ids stay below
CREATE TABLE IF NOT EXISTS idworker_worker_slot (
    ns          VARCHAR(64)  NOT NULL,
    slot_id     INT          NOT NULL,
    owner_token VARCHAR(64),
    expires_at  BIGINT       NOT NULL,
    high_water  BIGINT       NOT NULL,
    host_name   VARCHAR(255),
    pid         BIGINT,
    started_at  BIGINT,
    PRIMARY KEY (ns, slot_id)
);

-- one record per namespace, written at its first borrow: the layout it is pinned to (never changes), the largest
-- ttl + max-skew any borrower asked for, and how many slot ids have had a row (a missing one below it was lost)
CREATE TABLE IF NOT EXISTS idworker_worker_slot_ns (
    ns            VARCHAR(64)  NOT NULL PRIMARY KEY,
    layout        VARCHAR(128) NOT NULL,
    guard_ms      BIGINT       NOT NULL,
    slots_created INT          NOT NULL,
    created_at    BIGINT       NOT NULL
);

-- the application's own table: one row per order; its id, order_no and invoice_no come from idworker
-- (idworker's segment and serial tables are created by idworker itself: idworker.*.initialize-schema)
CREATE TABLE IF NOT EXISTS orders (
    id         BIGINT         NOT NULL PRIMARY KEY,
    order_no   VARCHAR(32)    NOT NULL UNIQUE,
    invoice_no BIGINT         NOT NULL UNIQUE,
    customer   VARCHAR(100)   NOT NULL,
    amount     DECIMAL(12, 2) NOT NULL,
    created_at TIMESTAMP      NOT NULL
);
