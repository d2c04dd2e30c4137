package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * What a native image of an application on this starter must keep that static analysis cannot see, registered for
 * every application that has the starter ({@code META-INF/spring/aot.factories}). It guarantees that every file the
 * starter and the modules it loads read from the class path is included (IdWorkerRuntimeHintsTest enumerates the
 * shipped files and fails on one that no pattern covers), and that the reflective calls they make still find their
 * targets:
 * <ol>
 *   <li>the Lua scripts of the Redis stores ({@code LuaScript.load}): {@link #LUA_SCRIPTS};</li>
 *   <li>the DDL of the JDBC stores, one file per dialect ({@code JdbcSchema.statements}): {@link #DDL};</li>
 *   <li>the configuration metadata, whose property names the unknown-property warning suggests from
 *       ({@code PropertySuggestions}): {@link #METADATA};</li>
 *   <li>the operators' status page {@code IdWorkerStatusPage.RESOURCE};</li>
 *   <li>the getters of HikariCP's {@code HikariConfig} that {@code JdbcRunner} and {@code RefusedLogin} call
 *       reflectively to name the database in an error (URL and user; the password only as set or not);</li>
 *   <li>{@code @IdAsString}'s Jackson writer and reader, which Jackson instantiates from the annotation;</li>
 *   <li>the customizer getters of Spring Data Redis's {@code JedisClientConfiguration}, which {@code JedisCallBound}
 *       looks up by name (Spring Data Redis 4.1 has them, 4.0 does not).</li>
 * </ol>
 * Not covered: the entity classes that {@code @GeneratedId} or {@code idworker.entity-ids.fields} name, which
 * belong to the application (its own hints, or Spring Data's AOT for its entities, must keep their ID fields).
 */
public final class IdWorkerRuntimeHints implements RuntimeHintsRegistrar {

    /** The Lua scripts: {@code io/github/idworker/<concept>/redis/lua/} and the shared {@code redis/lua/}. */
    public static final List<String> LUA_SCRIPTS = List.of(
            "io/github/idworker/*/redis/lua/*.lua",
            "io/github/idworker/redis/lua/*.lua");

    /** The DDL: {@code io/github/idworker/<concept>/jdbc/schema-<dialect>.sql}. */
    public static final List<String> DDL = List.of("io/github/idworker/*/jdbc/schema-*.sql");

    /** The configuration metadata of the starter (and of any other jar; only idworker's names are read). */
    public static final String METADATA = "META-INF/spring-configuration-metadata.json";

    private static final String HIKARI_CONFIG = "com.zaxxer.hikari.HikariConfig";
    private static final String JACKSON = "tools.jackson.databind.ValueSerializer";
    private static final String ID_AS_STRING = "io.github.idworker.spring.annotation.IdAsString";
    private static final String JEDIS_CLIENT_CONFIGURATION =
            "org.springframework.data.redis.connection.jedis.JedisClientConfiguration";

    /** Creates the registrar; Spring instantiates it from {@code META-INF/spring/aot.factories}. */
    public IdWorkerRuntimeHints() {
    }

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        LUA_SCRIPTS.forEach(pattern -> hints.resources().registerPattern(pattern));
        DDL.forEach(pattern -> hints.resources().registerPattern(pattern));
        hints.resources().registerPattern(METADATA);
        hints.resources().registerPattern(IdWorkerStatusPage.RESOURCE);
        if (ClassUtils.isPresent(HIKARI_CONFIG, classLoader)) {
            hints.reflection().registerType(TypeReference.of(HIKARI_CONFIG), type -> {
                for (String getter : List.of("getJdbcUrl", "getUsername", "getPassword")) {
                    type.withMethod(getter, List.of(), ExecutableMode.INVOKE);
                }
            });
        }
        if (ClassUtils.isPresent(JEDIS_CLIENT_CONFIGURATION, classLoader)) {
            hints.reflection().registerType(TypeReference.of(JEDIS_CLIENT_CONFIGURATION), type -> {
                // named here, not read from JedisCallBound, whose loading needs Jedis's pool classes too
                for (String getter : List.of("getClientConfigCustomizer", "getClientCustomizer")) {
                    type.withMethod(getter, List.of(), ExecutableMode.INVOKE);
                }
            });
        }
        if (ClassUtils.isPresent(JACKSON, classLoader)) {
            // by name: the nested classes extend Jackson's types, which an application without Jackson lacks
            for (String nested : List.of("Writer", "Reader")) {
                hints.reflection().registerType(TypeReference.of(ID_AS_STRING + "$" + nested),
                        MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
            }
        }
    }
}
