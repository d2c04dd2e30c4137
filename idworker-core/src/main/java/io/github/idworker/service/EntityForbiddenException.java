package io.github.idworker.service;

import io.github.idworker.IdWorkerException;

/**
 * An authenticated application asked for IDs it has no grant for (a pool entity, or a name of another family);
 * nothing was taken.
 * The message names the entity, never the application's secrets.
 */
public class EntityForbiddenException extends IdWorkerException {

    private final String entity;

    public EntityForbiddenException(String appKey, String entity) {
        this(appKey, ServiceApp.POOL_FAMILY, entity);
    }

    public EntityForbiddenException(String appKey, String family, String entity) {
        super(ServiceApp.POOL_FAMILY.equals(family)
                ? "application '" + appKey + "' may not take IDs of entity '" + entity + "'"
                : "application '" + appKey + "' has no grant for " + family + ":" + entity);
        this.entity = entity;
    }

    public String getEntity() {
        return entity;
    }
}
