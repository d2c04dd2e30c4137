package io.github.idworker.client;

import org.jspecify.annotations.Nullable;

/**
 * 404: the environments of the service that answered have no pool for this entity (and none answered 401); the
 * message lists what every environment did. An entity registered in one environment only is served there: a 404 is
 * failed over.
 */
public class UnknownEntityException extends IdServiceRefusedException {

    private final String entity;

    public UnknownEntityException(String message, String entity, @Nullable String title, @Nullable String detail) {
        super(message, 404, title, detail);
        this.entity = entity;
    }

    /** The entity asked for. */
    public String getEntity() {
        return entity;
    }
}
