package io.github.idworker.pool;

import io.github.idworker.IdWorkerException;

/** No pool is registered under the entity key; nothing was handed out. */
public class UnknownPoolEntityException extends IdWorkerException {

    private final String entity;

    /** @param where the store's description, e.g. {@code table idworker_id_pool at jdbc:h2:mem:x} */
    public UnknownPoolEntityException(String entity, String where) {
        super("ID pool entity '" + entity + "' is not registered in " + where + "; configure it under "
                + "idworker.pool.entities." + entity + ".* or insert its row");
        this.entity = entity;
    }

    public String getEntity() {
        return entity;
    }
}
