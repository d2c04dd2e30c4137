package io.github.idworker.test.pool;

import io.github.idworker.pool.PoolEntity;
import io.github.idworker.pool.PoolEnvironment;
import io.github.idworker.pool.PoolStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import java.util.List;

/**
 * One pool store under test, seen by {@link AbstractPoolStoreContractTest}: how to make store instances over it,
 * how to edit an entity's row as an operator would, and how to clean up after a test. Implementations talk to a
 * real store; none of these hooks may fake its behaviour.
 */
public interface PoolStoreStore extends AutoCloseable {

    /** A new, independent store instance over the same backing store, as another process would create it. */
    PoolStore newStore();

    /** Removes the entity {@code key}, so nothing is left for another test to trip on. */
    void deleteEntity(String key);

    /**
     * Sets one numeric setting of the entity's row in the backing store, as an operator editing the table would,
     * without any check: that one value and nothing else, whatever the store keeps beside it (for a table:
     * {@code UPDATE ... SET <column> = ? WHERE entity_key = ?}). The kit lowers {@code current-offset} this way to
     * move the row back, and raises it again as the operator's recovery.
     *
     * @param field as in {@link PoolEntity#property(String, String)}: {@code step}, {@code start-offset},
     *        {@code current-offset}, {@code threshold-percent}, {@code check-interval} (milliseconds), …
     */
    void setSetting(String key, String field, long value);

    /**
     * Inserts the entity's row, {@code current-offset} included, as an operator adding it to the table would:
     * pinned to {@code environment}, or to none when it is {@code null}.
     */
    void insertRow(PoolEntity entity, @Nullable PoolEnvironment environment);

    /** Secrets used to reach the backing store, which no description or message may show. */
    default List<String> credentials() {
        return List.of();
    }

    /**
     * Checks, as a store does at startup, the schema of a table named {@code table} in the backing store.
     * Stores without a schema leave this out, and the test that uses it is skipped.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException naming the property that creates the schema when
     *         the table is missing
     */
    default void verifySchemaOf(String table) {
        Assumptions.abort("this store has no schema to check");
    }

    @Override
    default void close() throws Exception {
    }
}
