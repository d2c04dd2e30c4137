-- idworker ID service applications, one row per application key; the table is the source of truth. MySQL 8 / MariaDB 10.5+.
-- Runs as it is (spring.sql.init, Flyway). For another table name (idworker.service.table), replace idworker_app with it
-- throughout; idworker's own initialize-schema does that itself.
-- Keep this table as private as the secrets in it: a secret signs calls, so it is stored as issued, not hashed.
CREATE TABLE IF NOT EXISTS idworker_app (
    app_key          VARCHAR(64)   CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'the X-App-Key of the application: letters, digits, _, - and .; case-sensitive',
    name             VARCHAR(128)  NOT NULL COMMENT 'who the application is, for people',
    secret           VARCHAR(256)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'the current secret (HMAC-SHA256 key), 16 to 256 printable ASCII characters',
    previous_secret  VARCHAR(256)  CHARACTER SET ascii COLLATE ascii_bin NULL COMMENT 'the secret before a rotation, valid too until set to NULL',
    entities         VARCHAR(4000) CHARACTER SET ascii COLLATE ascii_bin NOT NULL COMMENT 'pool entities it may take from, comma-separated, or * for every entity',
    max_per_second   INT           NOT NULL COMMENT 'IDs per second it may take, counted across every instance',
    enabled          BOOLEAN       NOT NULL DEFAULT TRUE COMMENT 'FALSE refuses its calls as unauthorized',
    created_at       DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    update_time      DATETIME(3)   NOT NULL DEFAULT CURRENT_TIMESTAMP(3) COMMENT 'last change by idworker',
    PRIMARY KEY (app_key)
) ENGINE = InnoDB;
