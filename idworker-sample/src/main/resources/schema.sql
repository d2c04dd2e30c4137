-- The application's own tables. idworker's come from the DDL it ships: its segment and serial tables are created
-- by idworker itself (idworker.*.initialize-schema), and profile db's lease tables for the MyBatis
-- dbSequenceManager by spring.sql.init from io/github/idworker/lease/jdbc/schema-h2.sql (application-db.yml).

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

-- what happened to each order; its id is filled on insert by idworker's MyBatis interceptor (OrderEvent)
CREATE TABLE IF NOT EXISTS order_events (
    id          BIGINT      NOT NULL PRIMARY KEY,
    order_id    BIGINT      NOT NULL,
    kind        VARCHAR(20) NOT NULL,
    happened_at TIMESTAMP   NOT NULL
);
