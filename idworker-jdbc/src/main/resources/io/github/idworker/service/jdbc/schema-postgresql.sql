-- idworker ID service applications, one row per application key; the table is the source of truth. PostgreSQL 12+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.service.table), replace idworker_app with it
-- throughout; idworker's own initialize-schema does that itself.
-- Keep this table as private as the secrets in it: a secret signs calls, so it is stored as issued, not hashed.
CREATE TABLE IF NOT EXISTS idworker_app (
    app_key          VARCHAR(64)   NOT NULL, -- the X-App-Key of the application: letters, digits, _, - and .
    name             VARCHAR(128)  NOT NULL, -- who the application is, for people
    secret           VARCHAR(256)  NOT NULL, -- the current secret (HMAC-SHA256 key), 16 to 256 printable ASCII characters
    previous_secret  VARCHAR(256),           -- the secret before a rotation, valid too until set to NULL
    entities         VARCHAR(4000) NOT NULL, -- pool entities it may take from, comma-separated, or * for every entity
    max_per_second   INT           NOT NULL, -- IDs per second it may take, counted across every instance
    enabled          BOOLEAN       DEFAULT TRUE NOT NULL, -- FALSE refuses its calls as unauthorized
    created_at       TIMESTAMP     DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time      TIMESTAMP     DEFAULT CURRENT_TIMESTAMP NOT NULL, -- last change by idworker
    PRIMARY KEY (app_key)
);
