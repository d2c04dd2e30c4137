package io.github.idworker.spring.entity.jdbc;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.entity.EntityIdFiller;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.relational.core.mapping.event.BeforeConvertCallback;

import java.util.function.Supplier;

/**
 * A Spring Data JDBC {@link BeforeConvertCallback} that gives a <em>new</em> aggregate an ID in its empty
 * {@link io.github.idworker.spring.entity.GeneratedId} fields before it is written; an ID the application set is
 * kept, and an aggregate that is not new (one being updated) is left as it is, so an update never gives an
 * existing row a fresh number in a {@code @GeneratedId} column the row had left empty. It guarantees the aggregate
 * returned is the one passed in.
 *
 * <p>Steps: when the aggregate's class has ID fields, ask its persistent entity of the
 * {@link RelationalMappingContext} whether the aggregate is new (its {@code @Id} is {@code null}, or
 * {@code Persistable.isNew()}, or a version says so); only then fill it. The callback runs before Spring Data JDBC
 * converts the aggregate, so a filled {@code @Id} is written by the insert the empty one chose. A
 * {@code JdbcAggregateTemplate.insert} of an aggregate whose {@code @Id} the application set is not new to Spring
 * Data either, so its other {@code @GeneratedId} fields are not filled: set them, or implement
 * {@code Persistable}.
 */
public class GeneratedIdCallback implements BeforeConvertCallback<Object> {

    private final EntityIdFiller filler;
    private final Supplier<RelationalMappingContext> mappingContext;

    /**
     * @param filler fills the aggregates' ID fields
     * @param mappingContext Spring Data JDBC's mapping context, which tells a new aggregate from a stored one
     */
    public GeneratedIdCallback(EntityIdFiller filler, RelationalMappingContext mappingContext) {
        this.filler = filler;
        this.mappingContext = () -> mappingContext;
    }

    /**
     * @param filler fills the aggregates' ID fields
     * @param mappingContext where the mapping context is found at the first save (the starter's form: the callback
     *        is created before Spring Data JDBC's configuration may be)
     */
    public GeneratedIdCallback(EntityIdFiller filler, ObjectProvider<? extends RelationalMappingContext>
            mappingContext) {
        this.filler = filler;
        this.mappingContext = () -> {
            RelationalMappingContext found = mappingContext.getIfUnique();
            if (found == null) {
                throw new IdWorkerConfigurationException("generator", "@GeneratedId fields are filled by Spring "
                        + "Data JDBC only for new aggregates, which its RelationalMappingContext tells apart, and the "
                        + "application context holds no unique one; declare it (Spring Boot's Data JDBC "
                        + "auto-configuration does) or build GeneratedIdCallback with yours");
            }
            return found;
        };
    }

    @Override
    public Object onBeforeConvert(Object aggregate) {
        if (filler.hasIdFields(aggregate.getClass())
                && mappingContext.get().getRequiredPersistentEntity(aggregate.getClass()).isNew(aggregate)) {
            filler.fill(aggregate);
        }
        return aggregate;
    }
}
