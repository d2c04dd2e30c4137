package io.github.idworker.spring.entity;

import org.jspecify.annotations.Nullable;

/**
 * What can be told about an ID source name without the application context: the forms a name may take, and
 * whether a name is malformed whatever beans exist. Shared by {@link EntityIdFiller} (at startup, for
 * {@code idworker.entity-ids.fields}) and {@link SpringIdSources} (at a name's first use), so both say the same.
 */
final class SourceNames {

    static final String FORMS = "a source is 'snowflake' (@EnableIdWorker), 'segment:<tag>' "
            + "(@EnableSegmentIdGenerators), 'sequence:<tag>' (@EnableSegmentIdGenerators(redisSequences = true)) "
            + "or the name of an IdGenerator bean";

    private SourceNames() {
    }

    /** Why {@code name} can stand for no generator, or {@code null} when only the context can tell. */
    static @Nullable String malformed(String name) {
        if (name.isBlank()) {
            return "ID source '" + name + "' is blank; " + FORMS;
        }
        for (String prefix : new String[] {IdSources.SEGMENT_PREFIX, IdSources.SEQUENCE_PREFIX}) {
            if (name.startsWith(prefix) && name.substring(prefix.length()).isBlank()) {
                return "ID source '" + name + "' has no tag after '" + prefix + "'; " + FORMS;
            }
        }
        return null;
    }
}
