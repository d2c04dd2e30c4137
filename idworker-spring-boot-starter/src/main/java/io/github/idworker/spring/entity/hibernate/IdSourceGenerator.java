package io.github.idworker.spring.entity.hibernate;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.spring.entity.IdSources;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;

/**
 * The Hibernate generator behind {@link SnowflakeId} and {@link SourcedId}: on insert it returns the ID the
 * application set, or else the next ID of the named source. It guarantees that an assigned ID is never replaced.
 * It finds the {@link IdSources} in the Hibernate setting {@value #SOURCES_SETTING}, which the starter fills
 * through a {@code HibernatePropertiesCustomizer}; an application that builds its own {@code EntityManagerFactory}
 * puts an {@code IdSources} there itself. Without it, every insert of such an entity fails naming the setting.
 */
public class IdSourceGenerator implements BeforeExecutionGenerator {

    /** The Hibernate setting that holds the {@link IdSources} object. */
    public static final String SOURCES_SETTING = "io.github.idworker.id-sources";

    private static final long serialVersionUID = 1L;

    private final String source;
    private final boolean text;
    // the session factory holds the generator; it is never serialised with the sources
    private final transient @Nullable IdSources sources;
    private final String member;
    private final String found;

    /** Called by Hibernate for {@link SnowflakeId}. */
    public IdSourceGenerator(SnowflakeId config, Member member, GeneratorCreationContext context) {
        this(IdSources.SNOWFLAKE, member, context);
    }

    /** Called by Hibernate for {@link SourcedId}. */
    public IdSourceGenerator(SourcedId config, Member member, GeneratorCreationContext context) {
        this(config.value(), member, context);
    }

    private IdSourceGenerator(String source, Member member, GeneratorCreationContext context) {
        this.source = source;
        Class<?> type = member instanceof Field f ? f.getType() : ((Method) member).getReturnType();
        if (type != Long.class && type != String.class) {
            throw new IdWorkerConfigurationException("generator", "ID " + member.getDeclaringClass().getName() + "."
                    + member.getName() + " is a " + type.getName() + "; @SnowflakeId and @SourcedId fill a Long or "
                    + "a String (a long cannot tell an assigned ID from a missing one)");
        }
        this.text = type == String.class;
        this.member = member.getDeclaringClass().getName() + "." + member.getName();
        Object found = context.getServiceRegistry().requireService(ConfigurationService.class).getSettings()
                .get(SOURCES_SETTING);
        // a missing setting fails the first insert rather than the startup: under Spring's bean container an
        // exception thrown here is replaced by Spring's own "No default constructor found", which names nothing
        this.sources = found instanceof IdSources s ? s : null;
        this.found = found == null ? "unset" : found.getClass().getName();
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner, @Nullable Object currentValue,
                           EventType eventType) {
        if (currentValue != null) {
            return currentValue;
        }
        if (sources == null) {
            throw new IdWorkerConfigurationException(SOURCES_SETTING, "Hibernate setting " + SOURCES_SETTING
                    + " holds no IdSources (was " + found + "), so " + member + " has nowhere to take IDs from; the "
                    + "starter sets it when Spring Boot's Hibernate auto-configuration builds the "
                    + "EntityManagerFactory, otherwise put the idSources bean there");
        }
        long id = sources.get(source).nextId();
        return text ? Long.toString(id) : id;
    }

    @Override
    public boolean allowAssignedIdentifiers() {
        return true;
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }
}
