package io.github.idworker.pool;

import io.github.idworker.IdWorkerConfigurationException;

/**
 * Which share of the ID space one deployment owns: environment {@code e} of {@code E} hands out only IDs with
 * {@code id mod E = e}, so {@code E} deployments with their own Redis and database never hand out the same ID.
 * The offset {@code n} reserved in the database becomes the ID {@code n × E + e}; for {@code E = 1} the ID is the
 * offset itself.
 *
 * @param environment this deployment's number, {@code 0 ≤ environment < environments}
 * @param environments how many independent deployments share the ID space
 */
public record PoolEnvironment(int environment, int environments) {

    public static final String ENVIRONMENT_PROPERTY = "idworker.pool.environment";
    public static final String ENVIRONMENTS_PROPERTY = "idworker.pool.environments";

    /** One deployment owning every ID. */
    public static final PoolEnvironment SINGLE = new PoolEnvironment(0, 1);

    /**
     * @throws IdWorkerConfigurationException naming the property at fault
     */
    public PoolEnvironment {
        if (environments < 1 || environments > 1024) {
            throw new IdWorkerConfigurationException(ENVIRONMENTS_PROPERTY, "must be from 1 to 1024, was " + environments);
        }
        if (environment < 0 || environment >= environments) {
            throw new IdWorkerConfigurationException(ENVIRONMENT_PROPERTY, "must be from 0 to "
                    + (environments - 1) + " (" + ENVIRONMENTS_PROPERTY + " is " + environments + "), was " + environment);
        }
    }

    /** The largest offset whose ID still fits a {@code long}. */
    public long maxOffset() {
        return (Long.MAX_VALUE - environment) / environments;
    }

    /** The ID of offset {@code n}, {@code n ≤ maxOffset()}. */
    public long id(long offset) {
        return offset * environments + environment;
    }

    /** {@code e/E}, as stored in the pool table. */
    @Override
    public String toString() {
        return environment + "/" + environments;
    }
}
