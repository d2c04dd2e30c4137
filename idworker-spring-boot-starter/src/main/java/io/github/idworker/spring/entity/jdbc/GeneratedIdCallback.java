package io.github.idworker.spring.entity.jdbc;

import io.github.idworker.spring.entity.EntityIdFiller;
import org.springframework.data.relational.core.mapping.event.BeforeConvertCallback;

/**
 * A Spring Data JDBC {@link BeforeConvertCallback} that gives an aggregate an ID in its empty
 * {@link io.github.idworker.spring.entity.GeneratedId} fields before it is written; an ID the application set is
 * kept. Spring Data JDBC decides insert or update before this callback runs (an aggregate whose {@code @Id} is
 * {@code null} is new), so an aggregate filled here is inserted with the ID it was given, by {@code save} and
 * {@code saveAll} alike. It guarantees the aggregate returned is the one passed in.
 */
public class GeneratedIdCallback implements BeforeConvertCallback<Object> {

    private final EntityIdFiller filler;

    /** @param filler fills the aggregates' ID fields */
    public GeneratedIdCallback(EntityIdFiller filler) {
        this.filler = filler;
    }

    @Override
    public Object onBeforeConvert(Object aggregate) {
        filler.fill(aggregate);
        return aggregate;
    }
}
