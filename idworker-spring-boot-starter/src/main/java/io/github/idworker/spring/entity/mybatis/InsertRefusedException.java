package io.github.idworker.spring.entity.mybatis;

import io.github.idworker.IdWorkerConfigurationException;

/**
 * A MyBatis {@code INSERT} that the {@link GeneratedIdInterceptor} refused before it ran, because the IDs it would
 * store or leave in the entities would not be the ones filled: the statement writes the driver's generated keys
 * back over a filled ID field, or it binds an empty ID field of an entity the interceptor cannot reach. Nothing
 * was inserted and no ID was drawn. The message names the statement, the field and what to change.
 */
public class InsertRefusedException extends IdWorkerConfigurationException {

    private final String statementId;
    private final String field;

    /**
     * @param statementId the mapped statement's id, for example {@code com.example.OrderMapper.insert}
     * @param field the ID field at stake, as {@code com.example.Order.id}
     * @param message why the statement was refused and what to change
     */
    public InsertRefusedException(String statementId, String field, String message) {
        super(statementId, message);
        this.statementId = statementId;
        this.field = field;
    }

    /** The id of the refused mapped statement. */
    public String getStatementId() {
        return statementId;
    }

    /** The ID field at stake: the declaring class's name, a dot and the field's name. */
    public String getField() {
        return field;
    }
}
