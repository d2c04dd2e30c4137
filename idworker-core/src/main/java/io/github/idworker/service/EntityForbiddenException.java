package io.github.idworker.service;

import io.github.idworker.IdWorkerException;

/**
 * An authenticated application asked for IDs of a pool entity it is not allowed to take from; nothing was taken.
 * The message names the entity, never the application's secrets.
 */
public class EntityForbiddenException extends IdWorkerException {

    private final String entity;

    public EntityForbiddenException(String appKey, String entity) {
        super("application '" + appKey + "' may not take IDs of entity '" + entity + "'");
        this.entity = entity;
    }

    public String getEntity() {
        return entity;
    }
}
