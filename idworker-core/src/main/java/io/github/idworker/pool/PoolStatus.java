package io.github.idworker.pool;

/**
 * What one pool looked like at one moment, as Redis and this node saw it.
 *
 * @param entity the entity key
 * @param level IDs in the pool
 * @param thresholdLevel below this level a refill starts
 * @param maxPoolSize the most IDs the pool ever holds
 * @param ratePerSecond IDs taken across all nodes in the last full second
 * @param state {@code OK}; {@code SEED} when the pool waits for its first refill after Redis lost it; {@code RESET}
 *        when Redis holds a pool written by another Redis, which the next take or refill drops
 */
public record PoolStatus(String entity, long level, long thresholdLevel, long maxPoolSize, long ratePerSecond,
                         String state) {
}
