package io.github.idworker.service;

import java.util.List;
import java.util.Optional;

/**
 * Where the ID service's applications are kept, shared by every instance of one environment. Guarantees of an
 * implementation: {@link #findAll()} and {@link #find} return what is stored now; {@link #save} makes the stored
 * application equal to the given one; a stored row that is not a valid application (an operator's typo) is left
 * out of both reads and logged naming its key, so it locks no other application out; nothing here ever logs or
 * returns a secret outside a {@link ServiceApp}.
 */
public interface AppStore {

    /** Every application, enabled or not, ordered by key. */
    List<ServiceApp> findAll();

    Optional<ServiceApp> find(String appKey);

    /** Inserts the application, or replaces every field of the stored one with the same key. */
    void save(ServiceApp app);

    /**
     * Inserts the application unless one with its key is stored; the stored one, or the inserted one.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException naming the field when the stored row is not a valid
     *         application (the stored row wins, so it must be corrected or deleted; {@link #save} replaces it)
     */
    ServiceApp saveIfMissing(ServiceApp app);

    /** Where the applications live, for messages; never a credential. */
    String description();
}
