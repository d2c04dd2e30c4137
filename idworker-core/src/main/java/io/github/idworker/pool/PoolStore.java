package io.github.idworker.pool;

import java.util.List;
import java.util.Optional;

/**
 * The durable side of the ID pools: one row per entity holding its settings and {@code current-offset}, the last
 * offset reserved. Guarantees: {@code current-offset} only grows, and every offset handed out by
 * {@link #reserve} belongs to exactly one reservation, whatever number of nodes reserve at once — so an ID that
 * reached Redis is never produced again, even after Redis lost everything.
 * An entity whose {@code current-offset} was moved back by hand (below the end of a reservation already made) is
 * refused by every store instance with {@link PoolRowMovedBackException}, nothing reserved, until it is raised
 * again; a store restored as a whole from an older backup cannot be told apart from its past.
 *
 * <p>Each row is pinned to the {@link PoolEnvironment} that first reserved from it; a node configured with another
 * environment is refused, because the same offsets under another split would collide with IDs handed out before.
 */
public interface PoolStore {

    /**
     * Inserts {@code entity} unless a row of its key exists; the stored row wins (operators tune it in the table),
     * and is returned.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException naming {@code idworker.pool.environment} when the
     *         row is pinned to another environment, or the field of a stored row that is invalid
     */
    PoolEntity register(PoolEntity entity, PoolEnvironment environment);

    /** The entity as its row holds it now. */
    Optional<PoolEntity> find(String key);

    /** Every entity of the store, by key. */
    List<PoolEntity> findAll();

    /**
     * Advances the entity's {@code current-offset} by {@code chunks × step} in one committed transaction and returns
     * the offsets it passed over, together with the entity's settings read in that transaction.
     *
     * @throws UnknownPoolEntityException when there is no row for {@code key}
     * @throws PoolExhaustedException when the offsets would pass the largest ID of {@code environment}
     * @throws PoolRowMovedBackException when the entity's {@code current-offset} was moved back below offsets already
     *         reserved
     * @throws io.github.idworker.IdWorkerConfigurationException naming {@code idworker.pool.environment} when the
     *         row is pinned to another environment; nothing is reserved then
     * @throws io.github.idworker.CenterUnavailableException when the store cannot be reached
     */
    PoolReservation reserve(String key, int chunks, PoolEnvironment environment);

    /** Where the store keeps its rows, for messages; never holds credentials. */
    String description();
}
