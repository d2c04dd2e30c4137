package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.client.IdServiceClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The ID service client: a bean {@code idServiceClient} ({@link IdServiceClient}, closed with the context) built
 * from {@code idworker.client.*}, when idworker-client is on the class path and
 * {@code idworker.client.environments} is set (comma-separated or as a list). Backs off when the application
 * declares an {@link IdServiceClient} of its own.
 *
 * <p>Steps at startup: bind {@code idworker.client.*} (the environments as strings); parse each environment as a
 * URI, refusing one that is blank or no URI with an {@link IdWorkerConfigurationException} naming
 * {@code idworker.client.environments} and its index, never its value (a URL may hold {@code user:password}); hand
 * each value to the client's builder, which checks it; a value it refuses fails the startup with an
 * {@link IdWorkerConfigurationException} naming {@code idworker.client.<property>} (never quoting the secret). No
 * request is sent at startup: the first {@code nextId} of an entity fetches its first batch.
 */
@AutoConfiguration
@ConditionalOnClass(name = IdServiceClientAutoConfiguration.CLIENT_CLASS)
@Conditional(IdServiceClientAutoConfiguration.EnvironmentsConfigured.class)
@EnableConfigurationProperties(IdServiceClientProperties.class)
public class IdServiceClientAutoConfiguration {

    /** By name, so that this class is read without loading the optional client. */
    static final String CLIENT_CLASS = "io.github.idworker.client.IdServiceClient";

    /** Name of the client bean. */
    public static final String CLIENT_BEAN = "idServiceClient";

    private static final String ENVIRONMENTS = IdServiceClientProperties.PREFIX + ".environments";
    private static final String URL_FORM = "give http(s)://host:port";

    @Bean(name = CLIENT_BEAN, destroyMethod = "close")
    @ConditionalOnMissingBean
    public IdServiceClient idServiceClient(IdServiceClientProperties properties) {
        return client(properties);
    }

    /**
     * @throws IdWorkerConfigurationException naming {@code idworker.client.<property>} of the first value the
     *         builder refuses
     */
    static IdServiceClient client(IdServiceClientProperties p) {
        List<URI> environments = environments(p.getEnvironments());
        try {
            IdServiceClient.Builder builder = IdServiceClient.builder()
                    .appKey(p.getAppKey())
                    .secret(p.getSecret())
                    .environments(environments)
                    .batchSize(p.getBatchSize())
                    .connectTimeout(p.getConnectTimeout())
                    .requestTimeout(p.getRequestTimeout())
                    .failureThreshold(p.getFailureThreshold())
                    .openDuration(p.getOpenDuration());
            if (p.getRefillThreshold() != null) {
                builder.refillThreshold(p.getRefillThreshold());
            }
            if (p.getMaxWait() != null) {
                builder.maxWait(p.getMaxWait());
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw configurationException(e);
        }
    }

    /**
     * Each value as a URI, for the builder to check further.
     *
     * @throws IdWorkerConfigurationException naming {@code idworker.client.environments} and the index of a value
     *         that is blank or no URI; neither the value nor the parser's exception (whose message quotes it) is
     *         part of it
     */
    static List<URI> environments(List<String> values) {
        List<URI> environments = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            String value = values.get(i);
            if (value == null || value.isBlank()) {
                throw new IdWorkerConfigurationException(ENVIRONMENTS, "value [" + i + "] is blank; " + URL_FORM);
            }
            try {
                environments.add(new URI(value.strip()));
            } catch (URISyntaxException e) {
                // the reason is the parser's fixed text; the index says where without saying what
                throw new IdWorkerConfigurationException(ENVIRONMENTS, "value [" + i + "] is not a URI (" + e.getReason()
                        + (e.getIndex() >= 0 ? " at character " + e.getIndex() : "") + "); it is not shown, as it may "
                        + "hold a password; " + URL_FORM);
            }
        }
        return environments;
    }

    /**
     * The builder's message starts with the setter at fault, optionally indexed ({@code "batchSize must be ..."},
     * {@code "environments[1] must ..."}): that word becomes the property ({@code idworker.client.batch-size},
     * {@code idworker.client.environments[1]}) and the rest the message.
     */
    static IdWorkerConfigurationException configurationException(IllegalArgumentException e) {
        String message = String.valueOf(e.getMessage());
        int space = message.indexOf(' ');
        String setter = space > 0 ? message.substring(0, space) : "";
        int index = setter.indexOf('[');
        String name = index >= 0 ? setter.substring(0, index) : setter;
        if (!name.matches("[a-z][A-Za-z]*")) {
            return new IdWorkerConfigurationException(IdServiceClientProperties.PREFIX, message, e);
        }
        String property = IdServiceClientProperties.PREFIX + "." + name.replaceAll("([A-Z])", "-$1")
                .toLowerCase(Locale.ROOT) + (index >= 0 ? setter.substring(index) : "");
        return new IdWorkerConfigurationException(property, message.substring(space + 1), e);
    }

    /** {@code idworker.client.environments} holds at least one non-blank value, in either list form. */
    static final class EnvironmentsConfigured extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConditionMessage.Builder message = ConditionMessage.forCondition("ID service environments");
            List<String> environments = Binder.get(context.getEnvironment())
                    .bind(ENVIRONMENTS, Bindable.listOf(String.class)).orElse(List.of());
            if (environments.stream().anyMatch(e -> e != null && !e.isBlank())) {
                return ConditionOutcome.match(message.found("property").items(ENVIRONMENTS));
            }
            return ConditionOutcome.noMatch(message.didNotFind("property").items(ENVIRONMENTS));
        }
    }
}
