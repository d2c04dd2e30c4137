package io.github.idworker.snowflake;

import java.time.Instant;

/**
 * The parts of a snowflake identifier as its {@link SnowflakeLayout} reads them.
 *
 * @param id the identifier
 * @param timestamp the millisecond the identifier was issued in, as the issuing worker's clock read it
 * @param workerId the worker id (slot) leased by the issuing worker
 * @param sequence the position within that millisecond
 */
public record DecodedId(long id, Instant timestamp, long workerId, long sequence) {
}
