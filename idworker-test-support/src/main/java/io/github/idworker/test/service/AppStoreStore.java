package io.github.idworker.test.service;

import io.github.idworker.service.AppStore;
import org.junit.jupiter.api.Assumptions;

import java.util.List;

/**
 * One application store under test, seen by {@link AbstractAppStoreContractTest}: how to make store instances
 * over it, how to write a row as an operator would, and how to clean up after a test. Implementations talk to a
 * real store; none of these hooks may fake its behaviour. {@link #close()} removes everything the test left,
 * tables included.
 */
public interface AppStoreStore extends AutoCloseable {

    /** A new, independent store instance over the same backing store, as another instance of the service would make it. */
    AppStore newStore();

    /** Writes {@code row} into the backing store as it is, without any check, as an operator editing the table would. */
    void insertRow(AppRow row);

    /** Removes the application {@code appKey}, valid or not, so nothing is left for another test to trip on. */
    void deleteApp(String appKey);

    /** Secrets used to reach the backing store, which no description or message may show. */
    default List<String> credentials() {
        return List.of();
    }

    /**
     * Creates the store's schema where it is missing, as the store does at startup when told to; existing data
     * stays. Stores without a schema leave this out, and the test that uses it is skipped.
     */
    default void createSchemaIfMissing() {
        Assumptions.abort("this store has no schema to create");
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

    /**
     * Makes the backing store refuse, from now on, any application whose {@code max-per-second} is above
     * {@code max} (a CHECK constraint an operator might add). Stores that cannot leave this out, and the test
     * that uses it is skipped.
     */
    default void refuseMaxPerSecondAbove(int max) {
        Assumptions.abort("this store cannot refuse a write by a constraint");
    }

    @Override
    default void close() throws Exception {
    }
}
