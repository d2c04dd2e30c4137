package io.github.idworker.service;

import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.pool.PoolEntity;
import io.github.idworker.signing.SecretForm;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An application allowed to call the ID service: its key, its current secrets, what it may call (its grants),
 * its own limit and whether it is enabled. Guarantees: immutable and valid once built (every field checked,
 * a failure naming {@code idworker.service.apps.<key>.<field>}); the secrets are kept for the signature check only
 * and never appear in {@link #toString()}.
 *
 * <p>A grant is {@code <family>:<name>} or {@code <family>:*}, the family one of {@link #FAMILIES}: for example
 * {@code segment:order}, {@code serial:*} or {@code snowflake:*}. A grant without a family names a pool entity
 * ({@code user} is {@code pool:user}, {@code *} is {@code pool:*}), as before families could be signed.
 *
 * <p>Two secrets are valid during a rotation: {@link #secret()} (the new one) and {@link #previousSecret()}
 * (the one clients still use until they move). Clearing the previous secret ends the rotation.
 */
public final class ServiceApp {

    /** Allows every entity, present and future. */
    public static final String ALL_ENTITIES = "*";
    /** The families a grant may name before its colon. */
    public static final Set<String> FAMILIES = Set.of("snowflake", "segment", "sequence", "serial", "pool");
    /** The family of a grant that names none. */
    public static final String POOL_FAMILY = "pool";
    public static final int DEFAULT_MAX_PER_SECOND = 10_000;
    /** Secrets are at least this long: an HMAC key of fewer characters is guessable offline from one signed call. */
    public static final int MIN_SECRET_LENGTH = SecretForm.MIN_LENGTH;
    public static final int MAX_SECRET_LENGTH = SecretForm.MAX_LENGTH;

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final String appKey;
    private final String name;
    private final String secret;
    private final @Nullable String previousSecret;
    private final Set<String> entities;
    private final int maxPerSecond;
    private final boolean enabled;

    private ServiceApp(Builder b) {
        this.appKey = checkKey(b.appKey, property(b.appKey, ""));
        this.name = (b.name == null || b.name.isBlank()) ? appKey : b.name.trim();
        if (name.length() > 128) {
            throw new IdWorkerConfigurationException(property(appKey, "name"), "must be at most 128 characters");
        }
        // not optional, so checkSecret returns the secret or throws
        this.secret = Objects.requireNonNull(checkSecret(b.secret, property(appKey, "secret"), false));
        this.previousSecret = checkSecret(b.previousSecret, property(appKey, "previous-secret"), true);
        if (b.entities.isEmpty()) {
            throw new IdWorkerConfigurationException(property(appKey, "entities"), "must name at least one grant: "
                    + "a pool entity the application may take from, '" + ALL_ENTITIES + "' for every entity, or "
                    + "<family>:<name> or <family>:* with a family of " + new java.util.TreeSet<>(FAMILIES));
        }
        for (String entity : b.entities) {
            checkGrant(entity, property(appKey, "entities"));
        }
        Set<String> grants = new LinkedHashSet<>(b.entities);
        if (grants.contains(ALL_ENTITIES)) {
            // every pool entity: single pool grants say nothing more, grants of other families stay
            grants.removeIf(g -> !g.equals(ALL_ENTITIES) && (g.indexOf(':') < 0 || g.startsWith(POOL_FAMILY + ":")));
        }
        this.entities = Collections.unmodifiableSet(grants);
        if (b.maxPerSecond < 1) {
            throw new IdWorkerConfigurationException(property(appKey, "max-per-second"), "must be at least 1 (IDs "
                    + "per second the application may take across all instances), was " + b.maxPerSecond);
        }
        this.maxPerSecond = b.maxPerSecond;
        this.enabled = b.enabled;
    }

    /** The property of one field of application {@code key}: {@code idworker.service.apps.<key>.<field>}. */
    public static String property(String key, String field) {
        return "idworker.service.apps." + key + (field.isEmpty() ? "" : "." + field);
    }

    /** @throws IdWorkerConfigurationException naming {@code property} unless {@code key} is a valid app key */
    public static String checkKey(String key, String property) {
        if (key == null || !KEY.matcher(key).matches()) {
            throw new IdWorkerConfigurationException(property, "an application key is 1 to 64 letters, digits, '_', "
                    + "'-' or '.'");
        }
        return key;
    }

    private static @Nullable String checkSecret(@Nullable String secret, String property, boolean optional) {
        if (secret == null || secret.isEmpty()) {
            if (optional) {
                return null;
            }
            throw new IdWorkerConfigurationException(property, "must be set: the application signs every call with it");
        }
        // the secret itself is never repeated in a message
        String problem = SecretForm.problem(secret);
        if (problem != null) {
            throw new IdWorkerConfigurationException(property, problem);
        }
        return secret;
    }

    public static Builder builder(String appKey) {
        return new Builder(appKey);
    }

    public Builder toBuilder() {
        return new Builder(appKey).name(name).secret(secret).previousSecret(previousSecret).entities(entities)
                .maxPerSecond(maxPerSecond).enabled(enabled);
    }

    public String appKey() {
        return appKey;
    }

    public String name() {
        return name;
    }

    /** The current secret. */
    public String secret() {
        return secret;
    }

    /** The secret before the last rotation, still valid until cleared; null when no rotation is under way. */
    public @Nullable String previousSecret() {
        return previousSecret;
    }

    /** The secrets a signature may be made with now: one, or two during a rotation. */
    public List<String> secrets() {
        List<String> secrets = new ArrayList<>(2);
        secrets.add(secret);
        if (previousSecret != null) {
            secrets.add(previousSecret);
        }
        return List.copyOf(secrets);
    }

    /** The application's grants as configured; {@code {"*"}} alone for every pool entity and nothing else. */
    public Set<String> entities() {
        return entities;
    }

    /** Whether the application may take IDs of pool entity {@code entity}. */
    public boolean allows(String entity) {
        return allows(POOL_FAMILY, entity);
    }

    /** Whether the application may call {@code name} of {@code family} (one of {@link #FAMILIES}). */
    public boolean allows(String family, String name) {
        if (entities.contains(family + ":" + ALL_ENTITIES) || entities.contains(family + ":" + name)) {
            return true;
        }
        return POOL_FAMILY.equals(family) && (entities.contains(ALL_ENTITIES) || entities.contains(name));
    }

    /**
     * Checks one grant: {@code <family>:<name>}, {@code <family>:*}, a pool entity key or {@code *}.
     *
     * @throws IdWorkerConfigurationException naming {@code property} and what is allowed
     */
    static void checkGrant(String grant, String property) {
        int colon = grant.indexOf(':');
        String name = colon < 0 ? grant : grant.substring(colon + 1);
        if (colon >= 0 && !FAMILIES.contains(grant.substring(0, colon))) {
            throw new IdWorkerConfigurationException(property, "a grant is <family>:<name> or <family>:* with a "
                    + "family of " + new java.util.TreeSet<>(FAMILIES) + ", or a pool entity key; was '" + grant + "'");
        }
        if (!ALL_ENTITIES.equals(name)) {
            PoolEntity.checkKey(name, property);
        }
    }

    /** IDs per second the application may take, counted across all instances sharing Redis. */
    public int maxPerSecond() {
        return maxPerSecond;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Same settings and secrets. */
    public boolean sameAs(ServiceApp other) {
        return appKey.equals(other.appKey) && name.equals(other.name) && secret.equals(other.secret)
                && Objects.equals(previousSecret, other.previousSecret) && entities.equals(other.entities)
                && maxPerSecond == other.maxPerSecond && enabled == other.enabled;
    }

    @Override
    public String toString() {
        return "ServiceApp[" + appKey + ", name=" + name + ", entities=" + entities + ", maxPerSecond=" + maxPerSecond
                + ", enabled=" + enabled + (previousSecret != null ? ", rotating" : "") + "]";
    }

    /** Builds a {@link ServiceApp}; {@link #build()} checks every field. */
    public static final class Builder {
        private final String appKey;
        private @Nullable String name;
        private @Nullable String secret;
        private @Nullable String previousSecret;
        private final Set<String> entities = new LinkedHashSet<>();
        private int maxPerSecond = DEFAULT_MAX_PER_SECOND;
        private boolean enabled = true;

        private Builder(String appKey) {
            this.appKey = appKey;
        }

        public Builder name(@Nullable String name) {
            this.name = name;
            return this;
        }

        public Builder secret(@Nullable String secret) {
            this.secret = secret;
            return this;
        }

        public Builder previousSecret(@Nullable String previousSecret) {
            this.previousSecret = previousSecret;
            return this;
        }

        /** Replaces the allowed entities; {@code "*"} allows every entity. */
        public Builder entities(java.util.Collection<String> entities) {
            this.entities.clear();
            if (entities != null) {
                for (String e : entities) {
                    if (e != null && !e.isBlank()) {
                        this.entities.add(e.trim());
                    }
                }
            }
            return this;
        }

        public Builder entities(String... entities) {
            return entities(List.of(entities));
        }

        public Builder maxPerSecond(int maxPerSecond) {
            this.maxPerSecond = maxPerSecond;
            return this;
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** @throws IdWorkerConfigurationException naming the property of the first invalid field */
        public ServiceApp build() {
            return new ServiceApp(this);
        }
    }
}
