package io.github.idworker.pool;

import java.util.List;
import java.util.Optional;

/**
 * IDs taken from per-entity pools shared by every node. Guarantees: no ID is handed out twice for an entity; a
 * take is all or nothing — it returns exactly {@code count} IDs or throws, never a short or empty result; for a
 * {@link IncreasingType#MONOTONIC} entity, when one take returned before another began, every ID of the first is
 * smaller; for {@link IncreasingType#TREND}, IDs increase chunk by chunk. Thread-safe.
 */
public interface IdPools {

    /**
     * Takes {@code count} IDs of {@code entity}, in pool order.
     *
     * @throws IllegalArgumentException when {@code count} is below 1
     * @throws PoolRequestTooLargeException when {@code count} is above the entity's {@code max-per-request}
     * @throws RateLimitedException when the take would pass the entity's {@code max-per-second}
     * @throws PoolEmptyException when the pool holds fewer than {@code count} IDs
     * @throws UnknownPoolEntityException when no entity has that key
     * @throws io.github.idworker.CenterUnavailableException when Redis or the database cannot be reached
     */
    long[] take(String entity, int count);

    /** Takes one ID of {@code entity}; see {@link #take(String, int)}. */
    default long take(String entity) {
        return take(entity, 1)[0];
    }

    /**
     * What this node remembers about each pool it serves, by entity key; reads memory only, never Redis or the
     * database, so a health probe or an operator page may call it while the stores are down. Empty unless the
     * implementation keeps such counters.
     */
    default List<PoolSnapshot> snapshots() {
        return List.of();
    }

    /**
     * What this node remembers about one pool, or empty when it serves none of that key; reads memory only. For
     * meters that read one pool per publish: implementations answer without building every pool's snapshot (this
     * default scans {@link #snapshots()}).
     */
    default Optional<PoolSnapshot> snapshot(String entity) {
        return snapshots().stream().filter(s -> s.entity().equals(entity)).findFirst();
    }
}
