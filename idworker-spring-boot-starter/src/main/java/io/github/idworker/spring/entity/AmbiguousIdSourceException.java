package io.github.idworker.spring.entity;

import io.github.idworker.IdWorkerConfigurationException;

import java.util.List;

/**
 * An ID source name matches more than one bean that could serve it (two snowflake workers, say, one of them built
 * by hand) and none is marked primary, so no ID is drawn rather than one from a guessed generator. The message
 * names the source, the type and the candidate beans, and what to do.
 */
public class AmbiguousIdSourceException extends IdWorkerConfigurationException {

    private final String source;
    private final List<String> beanNames;

    /**
     * @param source the ID source name, for example {@code snowflake}
     * @param type the bean type the name needs exactly one of
     * @param beanNames the beans of that type
     */
    public AmbiguousIdSourceException(String source, Class<?> type, List<String> beanNames) {
        super("generator", "ID source '" + source + "' needs one " + type.getSimpleName() + " bean but the "
                + "application context holds " + beanNames.size() + " " + beanNames + " and none is the default; "
                + "mark the one entity IDs should come from @Primary, declare the others with "
                + "@Bean(defaultCandidate = false), or name an IdGenerator bean as the source instead");
        this.source = source;
        this.beanNames = List.copyOf(beanNames);
    }

    /** The ID source name that matched several beans. */
    public String getSource() {
        return source;
    }

    /** The names of the beans it matched. */
    public List<String> getBeanNames() {
        return beanNames;
    }
}
